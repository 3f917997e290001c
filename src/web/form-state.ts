import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { cookie, redirect } from "./http.ts";
import type { MessageKey } from "./i18n.ts";
import { SESSION_COOKIE } from "./kit.ts";

/**
 * A refused form comes back to its page with the person's input and a message at each field
 * (issue 25 item 1, post/redirect/get). The whole API:
 *
 *   // in the POST handler, instead of answering the page with an error:
 *   return redirectWithFormError(request, "/meetings/new", { fields: { text: "err.field.textEmpty" }, values: { title } });
 *
 *   // in the GET handler of that page (or frame.formState: kit.frameFor takes it):
 *   const state = takeFormState(request);            // { values, fields, form? } | null, once
 *   <input name="title" value={state?.values.title} {...fieldAttrs("title", state)} />
 *   <FieldError name="title" state={state} t={t} />  // pages/fields.tsx
 *   // the form-level message (form / formText) is shown by the Layout, above the page.
 *
 * The state travels in one cookie (FORM_STATE_COOKIE), sealed with AES-256-GCM under a key of
 * this process (so its content is neither readable nor forgeable by anyone, the browser included),
 * HttpOnly, SameSite=Lax, Path = the page it returns to, living FORM_STATE_TTL_S. It is bound to
 * the browser's session (a hash of its session cookie, or "signed out"), read by ONE following GET
 * of that page (its nonce is then spent in this process, and the cookie cleared with the page:
 * createWebApp's hook, formStateCleared), and bounded in size (values that would not fit are
 * dropped, largest first: the messages always fit). A field whose name looks like a secret
 * (password, secret, token, csrf, key, anything starting with "_") is never kept. With several
 * instances a redirect that lands on another process finds nothing: the page shows its plain
 * form, as before this helper.
 *
 * `fields` values are message keys (never a sentence built from input); `form` (with `params`) is
 * an optional form-level message key (e.g. "the sign-in failed"), or `formText` a sentence of the
 * service's own (a refusal's detail), shown above the form by <FormError>.
 */
export interface FormState {
  /** The person's input, by field name (no secret fields). */
  values: Record<string, string>;
  /** The message key shown at each refused field. */
  fields: Record<string, MessageKey>;
  /** A message key for the form as a whole, when the refusal is not one field's (with `params` for its {placeholders}). */
  form?: MessageKey;
  params?: Record<string, string | number>;
  /** Or a sentence of the service's own for the form as a whole (a refusal's detail: a legal hold, a full quota). */
  formText?: string;
}

/** What a route hands redirectWithFormError: FormState, its values loosely typed (an absent field is left out). */
export type FormRefusal = Omit<FormState, "values"> & { values?: Record<string, string | null | undefined> };

export const FORM_STATE_COOKIE = "verbatim_form_state";
export const FORM_STATE_TTL_S = 120;
/** The sealed cookie value at most (browsers keep 4096 bytes a cookie, name and attributes included). */
export const MAX_FORM_STATE_CHARS = 3600;
const SECRET_FIELD = /password|secret|token|csrf|^_|^key$|api[_-]?key/i;

const key = randomBytes(32);
const spent = new Map<string, number>();
const MAX_SPENT = 10_000;
const taken = new WeakMap<Request, string>();
const answered = new WeakMap<Request, FormState | null>();

/** A 303 to `location` carrying `state` for its next GET; `cookies` are set along with it. */
export function redirectWithFormError(request: Request, location: string, state: FormRefusal, cookies: string[] = []): Response {
  const path = pathOf(location);
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(state.values ?? {})) {
    if (typeof value === "string" && value !== "" && !SECRET_FIELD.test(name)) values[name] = value;
  }
  const payload: Payload = { n: randomBytes(12).toString("base64url"), b: bindingOf(request), p: path, e: Date.now() + FORM_STATE_TTL_S * 1000, v: values, f: state.fields, ...(state.form ? { m: state.form } : {}), ...(state.params ? { a: state.params } : {}), ...(state.formText ? { x: state.formText.slice(0, 500) } : {}) };
  let sealed = seal(payload);
  // Too large: drop the largest value until it fits (the messages and the smaller values stay).
  while (sealed.length > MAX_FORM_STATE_CHARS && Object.keys(payload.v).length > 0) {
    const largest = Object.entries(payload.v).sort((a, b) => b[1].length - a[1].length)[0]![0];
    delete payload.v[largest];
    sealed = seal(payload);
  }
  return redirect(location, sealed.length <= MAX_FORM_STATE_CHARS ? [...cookies, stateCookie(request, sealed, path, FORM_STATE_TTL_S)] : cookies);
}

/**
 * The state a refused form left for this page (a GET), once: a reload shows the plain form; null
 * when none. Asked again for the same request, the same answer (kit.frameFor asks first: the
 * layout shows the form's own message, the page the fields').
 */
export function takeFormState(request: Request): FormState | null {
  if (answered.has(request)) return answered.get(request)!;
  const state = request.method === "GET" ? readState(request) : null;
  answered.set(request, state);
  return state;
}

function readState(request: Request): FormState | null {
  const sealed = cookie(request, FORM_STATE_COOKIE);
  if (!sealed || sealed.length > MAX_FORM_STATE_CHARS) return null;
  const payload = open(sealed);
  const path = new URL(request.url).pathname;
  if (!payload || payload.p !== path) return null;
  taken.set(request, path);
  const now = Date.now();
  if (payload.e < now || payload.b !== bindingOf(request) || spent.has(payload.n)) return null;
  spend(payload.n, payload.e, now);
  return { values: payload.v, fields: payload.f, ...(payload.m ? { form: payload.m } : {}), ...(payload.a ? { params: payload.a } : {}), ...(payload.x ? { formText: payload.x } : {}) };
}

/** The Set-Cookie that clears the state a page took (none when it took none): added to the page by createWebApp. */
export function formStateCleared(request: Request): string[] {
  const path = taken.get(request);
  return path === undefined ? [] : [stateCookie(request, "", path, 0)];
}

/**
 * A field's aria-invalid / aria-describedby when the state refused it, spread on the input; the
 * first refused field also takes the focus (autofocus: no script needed). `describedBy`: the
 * field's own help text's id, kept in aria-describedby either way.
 */
export function fieldAttrs(name: string, state: FormState | null | undefined, describedBy?: string): { "aria-invalid"?: "true"; "aria-describedby"?: string; autoFocus?: true } {
  if (!state?.fields[name]) return describedBy ? { "aria-describedby": describedBy } : {};
  const ids = describedBy ? `${describedBy} ${fieldErrorId(name)}` : fieldErrorId(name);
  return { "aria-invalid": "true", "aria-describedby": ids, ...(Object.keys(state.fields)[0] === name ? { autoFocus: true as const } : {}) };
}

/** The id of a field's message element (FieldError), which the field names in aria-describedby. */
export function fieldErrorId(name: string): string {
  return `error-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

interface Payload {
  /** A nonce, spent when the state is read. */
  n: string;
  /** The session it belongs to (bindingOf). */
  b: string;
  /** The page's path. */
  p: string;
  /** Expiry, epoch ms. */
  e: number;
  v: Record<string, string>;
  f: Record<string, MessageKey>;
  m?: MessageKey;
  a?: Record<string, string | number>;
  x?: string;
}

function pathOf(location: string): string {
  const url = new URL(location, "http://site");
  if (url.origin !== "http://site") throw new Error("redirectWithFormError: a path on this site only");
  return url.pathname;
}

/** A hash of the session cookie: a state made in one session is not shown in another (shown-once.ts's too). */
export function bindingOf(request: Request): string {
  const session = cookie(request, SESSION_COOKIE);
  return session ? createHash("sha256").update(session).digest("base64url").slice(0, 22) : "-";
}

function seal(payload: Payload): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(deflateRawSync(JSON.stringify(payload))), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
}

function open(sealed: string): Payload | null {
  try {
    const bytes = Buffer.from(sealed, "base64url");
    if (bytes.length < 29) return null;
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
    return JSON.parse(inflateRawSync(plain, { maxOutputLength: 64 * 1024 }).toString("utf8")) as Payload;
  } catch {
    return null;
  }
}

function spend(nonce: string, expires: number, now: number) {
  if (spent.size >= MAX_SPENT) {
    for (const [old, until] of spent) if (until < now) spent.delete(old);
    // Still full (a flood of live states): forget the oldest; at worst one of them shows twice.
    for (const old of spent.keys()) {
      if (spent.size < MAX_SPENT) break;
      spent.delete(old);
    }
  }
  spent.set(nonce, expires);
}

function stateCookie(request: Request, value: string, path: string, maxAge: number): string {
  return pageCookie(request, FORM_STATE_COOKIE, value, path, maxAge, "lax");
}

/**
 * A short-lived HttpOnly cookie for one page (form-state.ts, shown-once.ts): Secure when the
 * browser reached the site over https (its Origin on the form's POST, or the request itself).
 */
export function pageCookie(request: Request, name: string, value: string, path: string, maxAge: number, sameSite: "lax" | "strict"): string {
  const secure = new URL(request.url).protocol === "https:" || (request.headers.get("origin") ?? "").startsWith("https:");
  return new Bun.Cookie(name, value, { path, httpOnly: true, sameSite, secure, maxAge }).serialize();
}
