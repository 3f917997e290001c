import { ApiError, type FieldError } from "../errors/api-error.ts";
import { contextOf } from "../http/request-context.ts";
import { redirectWithFormError } from "./form-state.ts";
import { html, isSiteOrigin, redirect } from "./http.ts";
import type { MessageKey } from "./i18n.ts";
import { PageRefusal, SignInRequired, type WebKit } from "./kit.ts";
import { ErrorPage } from "./pages/error-page.tsx";

/**
 * The web app's one error layer (issue 25 item 1): every failure of a page or a form ends here.
 * - a page asked for while signed out: to sign-in, and back after it;
 * - a browser's form refused (an ApiError or a PageRefusal on a POST from one of our pages) that
 *   its route did not turn into field messages itself: back to the form's page (303) with a
 *   plain-language message (form-state.ts), never "Not allowed" for a wrong field;
 * - a page that is not there: the 404 page; a refusal: its page and status;
 * - anything else: logged with the request id, and the 500 page showing that id.
 */
export function errorResponse(kit: WebKit, request: Request, error: unknown): Response {
  if (error instanceof SignInRequired) {
    // A page asked for while signed out (a meeting's web_url from an email) opens after sign-in.
    const url = new URL(request.url);
    return redirect(request.method === "GET" ? `/login?next=${encodeURIComponent(url.pathname + url.search)}` : "/login");
  }
  const refused = error instanceof PageRefusal || error instanceof ApiError ? error : null;
  if (refused && refused.status === 404) return notFoundPage(kit, request);
  if (refused && refused.status < 500) {
    const back = formPageOf(request, kit.deps.publicUrl());
    if (back) return redirectWithFormError(request, back, refusalState(refused));
    const frame = kit.frameFor(request, kit.sessionOf(request), (t) => t("error.refused"));
    // A form's refusal in plain words; a script's request (the recorder's and uploader's PUTs) gets
    // the service's own sentence, which says what to do ("send it again whole").
    const message = refused instanceof ApiError && request.method === "POST" ? plainMessage(frame.t, refused) : refused.message;
    return html(<ErrorPage frame={frame} message={message} />, refused.status, [], refused instanceof ApiError ? refused.headers : {});
  }
  const requestId = contextOf(request).requestId;
  kit.deps.onUnexpectedError(error, requestId);
  const frame = kit.frameFor(request, kit.sessionOf(request), (t) => t("error.title"));
  return html(<ErrorPage frame={frame} message={frame.t("error.unexpected")} requestId={requestId} />, 500);
}

/** The 404 page, in the frame of whoever asks (the navigation when signed in). */
export function notFoundPage(kit: WebKit, request: Request): Response {
  const frame = kit.frameFor(request, kit.sessionOf(request), (t) => t("notFound.title"));
  return html(<ErrorPage frame={frame} message={frame.t("notFound.body")} />, 404);
}

/** The message keys of a refused field, by the code of its FieldError: plain language, never the schema's wording. */
const FIELD_MESSAGES: Record<string, MessageKey> = {
  required: "err.field.required",
  too_long: "err.field.tooLong",
  too_short: "err.field.tooShort",
  too_large: "err.field.outOfRange",
  too_small: "err.field.outOfRange",
  invalid_format: "err.field.invalid",
  invalid_type: "err.field.invalid",
  invalid_value: "err.field.invalid",
};

/** A refused field's message key: the route's own for this field or code, else the code's, else "check this value". */
export function fieldMessage(error: FieldError, own: Record<string, MessageKey> = {}): MessageKey {
  return own[`${error.field}:${error.code}`] ?? own[error.field] ?? FIELD_MESSAGES[error.code] ?? "err.field.invalid";
}

/**
 * An ApiError's field errors as the message keys of a form's fields. `names` maps the API's field
 * (`client.name`) to the form's (`client`) where they differ; `own` gives a field (or `field:code`)
 * its own message.
 */
export function fieldsOf(error: ApiError, names: Record<string, string> = {}, own: Record<string, MessageKey> = {}): Record<string, MessageKey> {
  const fields: Record<string, MessageKey> = {};
  for (const e of error.errors ?? []) {
    // A list's item (variants[3]) or an object's member is its form field's (variants).
    const field = names[e.field] ?? e.field.replace(/[.[].*$/, "");
    fields[field] ??= fieldMessage({ ...e, field }, own);
  }
  return fields;
}

/** What a refusal says on its form: the fields' messages, and a sentence for the form. */
function refusalState(error: ApiError | PageRefusal): Parameters<typeof redirectWithFormError>[2] {
  if (error instanceof PageRefusal) return { fields: {}, formText: error.message };
  if (error.code === "validation_error") return { fields: fieldsOf(error), form: "err.form.invalid" };
  return { fields: {}, formText: error.message };
}

/** The plain sentence of a refusal shown as a page: a wrong field is never "Invalid request: 1 field(s) wrong". */
function plainMessage(t: (key: MessageKey) => string, error: ApiError): string {
  return error.code === "validation_error" ? t("err.form.invalid") : error.message;
}

/**
 * The page a browser's form was sent from, when this request is one (a POST navigating, from a
 * page of this site: its Referer, sent by our Referrer-Policy same-origin), else null: a script's
 * request (it accepts JSON) and anything from elsewhere get the refusal page.
 */
function formPageOf(request: Request, publicUrl: string): string | null {
  if (request.method !== "POST" || !(request.headers.get("accept") ?? "").includes("text/html")) return null;
  const referer = request.headers.get("referer");
  if (!referer || !URL.canParse(referer)) return null;
  const from = new URL(referer);
  if (!isSiteOrigin(request, publicUrl, from.origin)) return null;
  from.searchParams.delete("notice");
  return `${from.pathname}${from.search}`;
}
