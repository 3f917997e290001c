import type { Elysia } from "elysia";
import { AdminRefusal, AUDIT_ACTION_KINDS, LastAdmin, type AdminCaller, type ManagedUser } from "../admin/app.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, SESSION_MAX_MS, type WebSession } from "../auth/app.ts";
import { randomBase62 } from "../lib/ids.ts";
import { sameSecret } from "../lib/same-secret.ts";
import { readFormBody } from "./form-body.ts";
import { cookie, html, redirect, sameOrigin, setCookie } from "./http.ts";
import { PageRefusal, SESSION_COOKIE, type WebKit } from "./kit.ts";
import { redirectWithFormError } from "./form-state.ts";
import type { MessageKey } from "./i18n.ts";
import { redirectShowingOnce, takeShownOnce } from "./shown-once.ts";
import { AdminAuditPage, type AuditFilters } from "./pages/admin-audit.tsx";
import { SignInLinkPage } from "./pages/admin-sign-in-link.tsx";
import { AdminStatusPage } from "./pages/admin-status.tsx";
import { AdminUsagePage } from "./pages/admin-usage.tsx";
import { AdminUserPage, AdminUsersPage, type ShownLink } from "./pages/admin-users.tsx";

/** The sign-in link form's CSRF token (double submit: this cookie and the form's field), before there is a session. */
const LINK_FORM_COOKIE = "verbatim_link_form";
/** What a redirect after a console form may announce (?notice=…): admin.notice.<key>. */
const NOTICES = ["created", "disabled", "enabled", "role", "plan", "credits", "cap"];
/** Audit entries a page shows. */
const AUDIT_PAGE = 50;

/**
 * The administration console (/admin: users, usage, audit trail, status) and the page a one-time
 * sign-in link opens (/login/link/<token>). Only an active administrator sees the console: anyone
 * else, signed out included, gets the same 404 as for a page that does not exist, so its existence
 * is not revealed; admin/app.ts checks again in every use case.
 */
export function adminPages(app: Elysia, kit: WebKit): void {
  const { deps } = kit;
  const admin = deps.apps.admin;

  /** The signed-in administrator, or the not-found page for anyone else (asked before any CSRF check: a 403 would tell). */
  const adminSession = async (request: Request): Promise<{ session: WebSession; by: AdminCaller }> => {
    const session = kit.sessionOf(request);
    if (!session || !(await admin.isAdmin(kit.actor(session)))) throw new PageRefusal(404, "");
    return { session, by: { actor: kit.actor(session) } };
  };
  const adminForm = async (request: Request) => {
    const found = await adminSession(request);
    const { form } = await kit.readForm(request);
    return { ...found, form };
  };
  const frame = (request: Request, session: WebSession) => kit.frameFor(request, session, (t) => t("admin.title"));

  /** A sign-in link just made (a new user, a reset sign-in), shown this once (shown-once.ts), or why it cannot be any more. */
  const linkOf = (request: Request): { link?: ShownLink; gone: boolean } => {
    const shown = takeShownOnce(request);
    const { email, url } = shown.value ?? {};
    return { link: email !== undefined && url !== undefined ? { email, url } : undefined, gone: shown.gone };
  };
  const usersPage = async (request: Request, session: WebSession, by: AdminCaller) => {
    const f = frame(request, session);
    const { link, gone } = linkOf(request);
    const notice = gone ? { text: f.t("err.shownOnceGone"), error: true } : kit.noticeOf(request, f.t, NOTICES, "admin.notice.");
    // A page holding a sign-in link is never kept by a cache or shown again by the back button.
    return html(<AdminUsersPage frame={f} users={await admin.users(by)} notice={notice} link={link} />, 200, [], { "cache-control": "no-store" });
  };
  const userPage = async (request: Request, session: WebSession, by: AdminCaller, userId: string) => {
    const user: ManagedUser = await admin.user(by, userId);
    const f = kit.frameFor(request, session, () => user.email);
    const { link, gone } = linkOf(request);
    const notice = gone ? { text: f.t("err.shownOnceGone"), error: true } : kit.noticeOf(request, f.t, NOTICES, "admin.notice.");
    return html(<AdminUserPage frame={f} user={user} notice={notice} link={link} />, 200, [], { "cache-control": "no-store" });
  };

  /** A console action on one user: done, then post/redirect/get to the user's page with its notice; a refusal comes back to that page with its sentence. */
  const userAction = (name: string, act: (by: AdminCaller, userId: string, form: URLSearchParams) => Promise<unknown>) =>
    app.post(`/admin/users/:userId/${name}`, async ({ request, params }) => {
      const { by, form } = await adminForm(request);
      try {
        await act(by, params.userId, form);
      } catch (error) {
        if (!(error instanceof AdminRefusal || error instanceof LastAdmin)) throw error;
        const back = `/admin/users/${encodeURIComponent(params.userId)}`;
        if (error instanceof LastAdmin) return redirectWithFormError(request, back, { fields: {}, form: "admin.lastAdmin" });
        return redirectWithFormError(request, back, { fields: {}, formText: error.message, values: { amount: form.get("amount"), note: form.get("note"), cap: form.get("cap") } });
      }
      return redirect(`/admin/users/${params.userId}?notice=${name}`);
    });

  app
    .get("/admin", async ({ request }) => {
      await adminSession(request);
      return redirect("/admin/users");
    })
    .get("/admin/users", async ({ request }) => {
      const { session, by } = await adminSession(request);
      return usersPage(request, session, by);
    })
    .post("/admin/users", async ({ request }) => {
      const { by, form } = await adminForm(request);
      const email = (form.get("email") ?? "").slice(0, 400);
      const name = (form.get("name") ?? "").slice(0, 400);
      const plan = form.get("plan") ?? "free";
      const role = form.get("role") === "admin" ? "admin" : "user";
      try {
        const created = await admin.createUser(by, { email, name, plan, role, link: true });
        // The link is shown this once, on the page this redirects to (like a new API key).
        return redirectShowingOnce(request, "/admin/users?notice=created", { email: created.user.email, url: created.link! });
      } catch (error) {
        if (!(error instanceof AdminRefusal)) throw error;
        const fields: Record<string, MessageKey> = error.reason === "email_taken" ? { email: "err.field.emailTaken" } : error.reason === "bad_email" ? { email: "err.field.email" } : {};
        return redirectWithFormError(request, "/admin/users", { fields, ...(Object.keys(fields).length ? {} : { formText: error.message }), values: { email, name, plan, role } });
      }
    })
    .get("/admin/users/:userId", async ({ request, params }) => {
      const { session, by } = await adminSession(request);
      return userPage(request, session, by, params.userId);
    })
    .post("/admin/users/:userId/reset-sign-in", async ({ request, params }) => {
      const { by } = await adminForm(request);
      const user = await admin.user(by, params.userId);
      const url = await admin.resetSignIn(by, user.id);
      return redirectShowingOnce(request, `/admin/users/${encodeURIComponent(user.id)}`, { email: user.email, url });
    });
  userAction("disable", (by, userId) => admin.disable(by, userId));
  userAction("enable", (by, userId) => admin.enable(by, userId));
  userAction("role", (by, userId, form) => admin.setRole(by, userId, form.get("role") === "admin" ? "admin" : "user"));
  userAction("plan", (by, userId, form) => admin.setPlan(by, userId, form.get("plan") ?? ""));
  userAction("credits", (by, userId, form) => admin.grantCredits(by, userId, wholeNumber(form.get("amount")), form.get("note")));
  userAction("cap", (by, userId, form) => {
    const text = (form.get("cap") ?? "").trim();
    return admin.setSpendCap(by, userId, text === "" ? null : wholeNumber(text));
  });

  app
    .get("/admin/usage", async ({ request }) => {
      const { session, by } = await adminSession(request);
      const params = new URL(request.url).searchParams;
      const f = frame(request, session);
      const range = { from: params.get("from")?.trim() || undefined, to: params.get("to")?.trim() || undefined };
      try {
        const usage = await admin.usage(by, range);
        return html(<AdminUsagePage frame={f} from={usage.from} to={usage.to} rows={usage.rows} currency={deps.billing.currency} />);
      } catch (error) {
        if (!(error instanceof AdminRefusal)) throw error;
        const fallback = await admin.usage(by);
        return html(<AdminUsagePage frame={f} from={fallback.from} to={fallback.to} rows={fallback.rows} currency={deps.billing.currency} notice={{ text: error.message, error: true }} />, 400);
      }
    })
    .get("/admin/status", async ({ request }) => {
      const { session, by } = await adminSession(request);
      return html(<AdminStatusPage frame={frame(request, session)} status={await admin.status(by)} />);
    })
    .get("/admin/audit", async ({ request }) => {
      const { session, by } = await adminSession(request);
      const params = new URL(request.url).searchParams;
      const f = frame(request, session);
      const filters: AuditFilters = {};
      for (const name of ["account", "kind", "resource", "since", "until", "cursor"] as const) {
        const value = params.get(name)?.trim().slice(0, 100);
        if (value && name !== "cursor") filters[name] = value;
      }
      const users = await admin.users(by);
      const day = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? Date.parse(`${value}T00:00:00Z`) : undefined);
      const bad = (["since", "until"] as const).filter((name) => filters[name] !== undefined && day(filters[name]) === undefined);
      const kind = filters.kind && AUDIT_ACTION_KINDS.includes(filters.kind) ? filters.kind : undefined;
      const cursor = /^(\d{1,15})\.(\d{1,15})$/.exec(params.get("cursor") ?? "");
      const until = day(filters.until);
      const page = await admin.audit(
        by,
        {
          ...(filters.account ? { accountId: filters.account } : {}),
          ...(kind ? { kinds: [kind] } : {}),
          ...(filters.resource ? { resourceId: filters.resource } : {}),
          ...(day(filters.since) !== undefined ? { since: day(filters.since) } : {}),
          // The day given is included: entries before the next day's start.
          ...(until !== undefined ? { until: until + 24 * 3600_000 } : {}),
        },
        { limit: AUDIT_PAGE, ...(cursor ? { after: [Number(cursor[1]), Number(cursor[2])] as [number, number] } : {}) },
      );
      let nextHref: string | null = null;
      if (page.next) {
        const next = new URLSearchParams(params);
        next.set("cursor", `${page.next[0]}.${page.next[1]}`);
        nextHref = `/admin/audit?${next}`;
      }
      const notice = bad.length ? { text: `${bad.join(", ")}: YYYY-MM-DD`, error: true } : undefined;
      return html(<AdminAuditPage frame={f} rows={page.data} users={users} kinds={AUDIT_ACTION_KINDS} filters={filters} nextHref={nextHref} notice={notice} />, bad.length ? 400 : 200);
    });

  /**
   * The page a one-time sign-in link opens, for anyone holding the link, signed in or not: its
   * account's email and the password form while the link is live (a refused try's message, from
   * form-state.ts, at its field or above the page), else only why it is not (404).
   */
  const linkPage = async (request: Request, token: string) => {
    const formToken = cookie(request, LINK_FORM_COOKIE) ?? randomBase62(32);
    const f = kit.frameFor(request, undefined, (t) => t("link.title"));
    const found = await kit.auth.signInLink.peek(token);
    // The token is in the path: the page is never cached, and sends no Referer with it.
    return html(
      <SignInLinkPage frame={f} formToken={formToken} token={token} email={found?.email} error={found ? undefined : f.t("link.invalid")} />,
      found ? 200 : 404,
      [setCookie(request, deps.publicUrl(), LINK_FORM_COOKIE, formToken, 3600, "strict")],
      { "cache-control": "no-store", "referrer-policy": "no-referrer" },
    );
  };
  app
    .get("/login/link/:token", ({ request, params }) => linkPage(request, params.token))
    .post("/login/link/:token", async ({ request, params }) => {
      const form = await readFormBody(request);
      // A refusal comes back to the link's page (post/redirect/get: a reload sends no password again).
      const back = `/login/link/${encodeURIComponent(params.token)}`;
      if (!sameOrigin(request, deps.publicUrl()) || !sameSecret(form.get("_csrf") ?? undefined, cookie(request, LINK_FORM_COOKIE))) {
        return redirectWithFormError(request, back, { fields: {}, form: "login.expired" });
      }
      const outcome = await kit.auth.signInLink.use({ token: params.token, password: form.get("password") ?? "", replacing: cookie(request, SESSION_COOKIE) });
      // A weak password leaves the link live: the same form, with the rule it broke at the field;
      // a link no longer valid: its page says so.
      if (outcome.kind === "weak") return redirectWithFormError(request, back, { fields: { password: "link.weak" }, params: { min: MIN_PASSWORD_LENGTH, max: MAX_PASSWORD_LENGTH } });
      if (outcome.kind === "invalid") return redirect(back);
      return redirect("/meetings", [
        setCookie(request, deps.publicUrl(), SESSION_COOKIE, outcome.sessionToken, SESSION_MAX_MS / 1000, "lax"),
        setCookie(request, deps.publicUrl(), LINK_FORM_COOKIE, "", 0, "strict"),
      ]);
    });
}

/** A form's whole number, else NaN (which the use case refuses with its sentence). */
function wholeNumber(text: string | null): number {
  const value = (text ?? "").trim();
  return /^\d{1,13}$/.test(value) ? Number(value) : Number.NaN;
}
