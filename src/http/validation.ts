import { z } from "zod";
import { ApiError, type FieldError } from "../errors/api-error.ts";

/** `participants[0].email` style path, the form every field error uses. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function codeOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "required" : "invalid_type";
    case "too_big":
      return issue.origin === "string" || issue.origin === "array" ? "too_long" : "too_large";
    case "too_small":
      return issue.origin === "string" || issue.origin === "array" ? "too_short" : "too_small";
    case "invalid_format":
      return "invalid_format";
    case "invalid_value":
    case "invalid_union":
      return "invalid_value";
    case "custom":
      return (issue.params?.code as string | undefined) ?? "invalid_value";
    default:
      return "invalid_value";
  }
}

/** Zod issues to one entry per wrong field; unknown keys each get their own entry. */
export function fieldErrors(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const field = fieldPath([...prefix, ...issue.path, key]);
        if (!byField.has(field)) byField.set(field, { field, code: "unknown_field", message: "This field is not accepted here." });
      }
      continue;
    }
    const field = fieldPath([...prefix, ...issue.path]) || "body";
    if (byField.has(field)) continue;
    const code = codeOf(issue);
    byField.set(field, { field, code, message: code === "required" ? "This field is required." : issue.message });
  }
  return [...byField.values()];
}

/** Parses `input` with `schema` or throws a 400 validation_error listing every wrong field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix: readonly PropertyKey[] = []): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw ApiError.validation(fieldErrors(result.error, prefix));
  return result.data;
}
