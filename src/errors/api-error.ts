import { ERROR_CATALOGUE, type ErrorCode } from "./catalogue.ts";

/** One wrong field of a 400 validation_error. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/**
 * An error a service raises for the caller to see. It carries a catalogue code, not an HTTP
 * framework type: the HTTP layer turns it into problem+json.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  /**
   * Set when the server's operator should hear of this refusal (a client that vanished mid-upload,
   * a disk that filled up): logged as a warning line, never shown to the client.
   */
  readonly warning?: string;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { errors?: FieldError[]; headers?: Record<string, string>; warning?: string } = {},
  ) {
    super(detail);
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.errors = options.errors;
    this.headers = options.headers;
    this.warning = options.warning;
  }

  static validation(errors: FieldError[]): ApiError {
    const fields = errors.map((e) => e.field).join(", ");
    return new ApiError("validation_error", `Invalid request: ${errors.length} field(s) wrong (${fields}).`, { errors });
  }

  static notFound(what: string): ApiError {
    return new ApiError("not_found", `${what} was not found.`);
  }
}
