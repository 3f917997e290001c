import { expect, test } from "bun:test";
import { render } from "preact-render-to-string";
import { fieldAttrs, FORM_STATE_COOKIE, formStateCleared, MAX_FORM_STATE_CHARS, redirectWithFormError, takeFormState, type FormState } from "./form-state.ts";
import { translator } from "./i18n.ts";
import { SESSION_COOKIE } from "./kit.ts";
import { FieldError, FormError } from "./pages/fields.tsx";

const SITE = "http://verbatim.test";

/** The form-state cookie a redirect set, as the browser would send it back. */
function stateCookieOf(response: Response): { value: string; attributes: string } | null {
  const set = response.headers.getSetCookie().find((c) => c.startsWith(`${FORM_STATE_COOKIE}=`));
  if (!set) return null;
  const [pair, ...attributes] = set.split(";");
  return { value: pair!.slice(FORM_STATE_COOKIE.length + 1), attributes: attributes.join(";").toLowerCase() };
}

function get(path: string, state: string | undefined, session?: string): Request {
  const cookies = [state !== undefined ? `${FORM_STATE_COOKIE}=${state}` : "", session ? `${SESSION_COOKIE}=${session}` : ""].filter(Boolean).join("; ");
  return new Request(`${SITE}${path}`, { headers: cookies ? { cookie: cookies } : {} });
}

function post(path: string, session?: string, origin = SITE): Request {
  return new Request(`${SITE}${path}`, { method: "POST", headers: { origin, ...(session ? { cookie: `${SESSION_COOKIE}=${session}` } : {}) } });
}

test("a refused form's input and field messages come back to its page once, then never", () => {
  const response = redirectWithFormError(post("/meetings/text", "s1"), "/meetings/new?mode=text", { fields: { text: "err.field.textEmpty" }, values: { title: "Ward 4 review", text: "" } });
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe("/meetings/new?mode=text");
  const sent = stateCookieOf(response)!;
  expect(sent.attributes).toContain("httponly");
  expect(sent.attributes).toContain("samesite=lax");
  expect(sent.attributes).toContain("path=/meetings/new");
  expect(sent.attributes).toContain("max-age=120");
  expect(sent.value).not.toContain("Ward"); // sealed: not readable from the cookie

  const page = get("/meetings/new?mode=text", sent.value, "s1");
  expect(takeFormState(page)).toEqual({ values: { title: "Ward 4 review" }, fields: { text: "err.field.textEmpty" } });
  // The page that took it clears the cookie (routes.tsx appends this to the response).
  const cleared = formStateCleared(page);
  expect(cleared).toHaveLength(1);
  expect(cleared[0]!.toLowerCase()).toContain("max-age=0");
  expect(cleared[0]!.toLowerCase()).toContain("path=/meetings/new");
  // A reload sending the same cookie again (the clearing lost) shows the plain form.
  expect(takeFormState(get("/meetings/new", sent.value, "s1"))).toBeNull();
  // A page that took nothing clears nothing.
  expect(formStateCleared(get("/meetings/new", undefined, "s1"))).toEqual([]);
});

test("a state belongs to its session and its page", () => {
  const sealed = stateCookieOf(redirectWithFormError(post("/settings/webhooks", "s1"), "/settings/webhooks", { fields: { url: "err.field.required" }, values: { url: "http://10.0.0.1/" } }))!.value;
  expect(takeFormState(get("/settings/webhooks", sealed, "another-session"))).toBeNull();
  expect(takeFormState(get("/settings/webhooks", sealed))).toBeNull(); // signed out since
  expect(takeFormState(get("/settings/other", sealed, "s1"))).toBeNull();
  expect(takeFormState(get("/settings/webhooks", sealed, "s1"))?.values).toEqual({ url: "http://10.0.0.1/" });
  // Signed out (the sign-in form) is a binding of its own.
  const anonymous = stateCookieOf(redirectWithFormError(post("/login"), "/login?next=%2Fmeetings", { fields: {}, form: "err.field.required", values: { email: "a@b.example" } }))!.value;
  expect(takeFormState(get("/login", anonymous))).toEqual({ values: { email: "a@b.example" }, fields: {}, form: "err.field.required" });
});

test("a forged, altered or foreign cookie is ignored", () => {
  const sealed = stateCookieOf(redirectWithFormError(post("/x", "s1"), "/x", { fields: { a: "err.field.required" }, values: { a: "1" } }))!.value;
  const altered = sealed.slice(0, 40) + (sealed[40] === "A" ? "B" : "A") + sealed.slice(41);
  for (const bad of [altered, "", "abc", "x".repeat(MAX_FORM_STATE_CHARS + 1), Buffer.from(JSON.stringify({ p: "/x", v: { a: "1" } })).toString("base64url")]) {
    expect(takeFormState(get("/x", bad, "s1"))).toBeNull();
  }
});

test("passwords, tokens and secrets are never kept; only strings", () => {
  const values = { email: "a@b.example", password: "hunter2", new_password: "x", _csrf: "c", token: "t", client_secret: "s", key: "k", api_key: "k2", name: "Laptop", empty: "", missing: undefined };
  const sealed = stateCookieOf(redirectWithFormError(post("/login"), "/login", { fields: { password: "err.field.required" }, values }))!.value;
  expect(takeFormState(get("/login", sealed))?.values).toEqual({ email: "a@b.example", name: "Laptop" });
});

test("a state too large for a cookie drops its largest values first, never its messages", () => {
  const noise = (n: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString("base64").slice(0, n); // incompressible
  const values = { text: noise(20_000), notes: noise(1_500), title: "Kept" };
  const response = redirectWithFormError(post("/meetings/text", "s1"), "/meetings/new", { fields: { text: "err.field.textEmpty", title: "err.field.required" }, values });
  const sealed = stateCookieOf(response)!.value;
  expect(sealed.length).toBeLessThanOrEqual(MAX_FORM_STATE_CHARS);
  const state = takeFormState(get("/meetings/new", sealed, "s1"))!;
  expect(state.values.title).toBe("Kept");
  expect("text" in state.values).toBe(false);
  expect(state.fields).toEqual({ text: "err.field.textEmpty", title: "err.field.required" });
});

test("the cookie is Secure when the browser came over https; extra cookies ride along", () => {
  const response = redirectWithFormError(post("/x", "s1", "https://verbatim.example"), "/x", { fields: { a: "err.field.required" } }, ["other=1; Path=/"]);
  expect(response.headers.getSetCookie()[0]).toBe("other=1; Path=/");
  expect(stateCookieOf(response)!.attributes).toContain("secure");
  expect(stateCookieOf(redirectWithFormError(post("/x", "s1"), "/x", { fields: {} }))!.attributes).not.toContain("secure");
});

test("only a path on this site is a place to return to", () => {
  expect(() => redirectWithFormError(post("/x"), "https://elsewhere.example/x", { fields: {} })).toThrow();
  expect(() => redirectWithFormError(post("/x"), "//elsewhere.example/x", { fields: {} })).toThrow();
});

test("FieldError and fieldAttrs: the message next to the field, named by it, the first refused field focused", () => {
  const t = translator("fr");
  const state: FormState = { values: {}, fields: { text: "err.field.textEmpty", title: "err.field.required" } };
  expect(render(<FieldError name="text" state={state} t={t} />)).toBe(`<span class="field-error" id="error-text">Collez d'abord du texte</span>`);
  expect(render(<FieldError name="title" state={null} t={t} />)).toBe("");
  expect(render(<textarea name="text" {...fieldAttrs("text", state)} />)).toBe('<textarea name="text" aria-invalid="true" aria-describedby="error-text" autofocus></textarea>');
  expect(render(<input name="title" {...fieldAttrs("title", state)} />)).toBe('<input name="title" aria-invalid="true" aria-describedby="error-title"/>');
  expect(fieldAttrs("other", state)).toEqual({});
  expect(render(<FormError state={{ ...state, form: "err.field.required" }} t={t} />)).toContain('role="alert"');
  expect(render(<FormError state={state} t={t} />)).toBe("");
});
