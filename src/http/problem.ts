import { ERROR_CATALOGUE, type ErrorCode } from "../errors/catalogue.ts";
import type { ApiError, FieldError } from "../errors/api-error.ts";

export const PROBLEM_MEDIA_TYPE = "application/problem+json";

export interface ProblemInput {
  code: ErrorCode;
  detail: string;
  instance: string;
  requestId: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

/** RFC 9457 problem details, with the service's code and request id. */
export function problemResponse(docsUrl: string, input: ProblemInput): Response {
  const entry = ERROR_CATALOGUE[input.code];
  const body: Record<string, unknown> = {
    type: `${docsUrl}/api/errors#${input.code}`,
    title: entry.title,
    status: entry.status,
    detail: input.detail,
    instance: input.instance,
    code: input.code,
    request_id: input.requestId,
  };
  if (input.errors) body.errors = input.errors;
  return new Response(JSON.stringify(body), {
    status: entry.status,
    headers: { "Content-Type": PROBLEM_MEDIA_TYPE, ...input.headers },
  });
}

export function problemFromApiError(docsUrl: string, error: ApiError, instance: string, requestId: string): Response {
  return problemResponse(docsUrl, {
    code: error.code,
    detail: error.message,
    instance,
    requestId,
    errors: error.errors,
    headers: error.headers,
  });
}
