import type { Elysia } from "elysia";
import { ApiKeyLimitReached, isScope, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, SESSION_MAX_MS, type Locale, type Scope, type WebSession } from "../auth/app.ts";
import { redirectWithFormError } from "./form-state.ts";
import { redirectShowingOnce, takeShownOnce } from "./shown-once.ts";
import { cookie, html, redirect, setCookie } from "./http.ts";
import { attemptRefusal, BROWSER_COOKIE, BROWSER_COOKIE_MAX_AGE_S, SESSION_COOKIE, type WebKit } from "./kit.ts";
import { DevelopersPage } from "./pages/developers.tsx";
import { SettingsPage } from "./pages/settings.tsx";

const SETTINGS_NOTICES = ["language", "password"];

/** Settings: profile, language, password, sessions; Developers: API keys. */
export function settingsPages(app: Elysia, kit: WebKit): void {
  const { deps, auth } = kit;

  const settingsPage = (request: Request, session: WebSession) => {
    const frame = kit.frameFor(request, session, (t) => t("nav.settings"));
    const { user } = session;
    return html(<SettingsPage frame={frame} email={user.email} name={user.name} plan={user.plan} locale={session.locale} notice={kit.noticeOf(request, frame.t, SETTINGS_NOTICES)} />);
  };

  const developersPage = async (request: Request, session: WebSession) => {
    const frame = kit.frameFor(request, session, (t) => t("settings.developers"));
    // A key just created, shown this once (shown-once.ts), or why it cannot be shown again.
    const shown = takeShownOnce(request);
    const createdKey = shown.value?.name !== undefined && shown.value.key !== undefined ? { name: shown.value.name, key: shown.value.key } : undefined;
    const notice = shown.gone ? { text: frame.t("err.shownOnceGone"), error: true } : kit.noticeOf(request, frame.t, ["revoked"]);
    const keys = await auth.keys.list(kit.actor(session));
    // The page holding a new key is never kept by a cache or shown again by the back button.
    return html(<DevelopersPage frame={frame} keys={keys} createdKey={createdKey} notice={notice} maxKeys={deps.maxApiKeys} />, 200, [], { "cache-control": "no-store" });
  };

  app
    .get("/settings", ({ request }) => settingsPage(request, kit.requireSession(request)))
    .post("/settings/language", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const chosen = form.get("locale");
      const locale: Locale | null = chosen === "en" || chosen === "fr" ? chosen : null;
      await auth.setLocale(kit.actor(session), locale);
      return redirect("/settings?notice=language");
    })
    .post("/settings/password", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      // Guessing the current password here is a sign-in attempt: the same throttle and bounds count it.
      const outcome = await auth.changePassword(kit.actor(session), {
        current: form.get("current") ?? "",
        password: form.get("password") ?? "",
        clientKey: kit.clientKey(request),
        browserToken: cookie(request, BROWSER_COOKIE),
      });
      // A refusal comes back to the form (post/redirect/get), its message at the field; no password is kept.
      if (outcome.kind === "throttled" || outcome.kind === "busy") {
        const refusal = attemptRefusal(outcome);
        const back = redirectWithFormError(request, "/settings", { fields: {}, form: refusal.key, params: refusal.params });
        for (const [name, value] of Object.entries(refusal.headers)) back.headers.set(name, value);
        return back;
      }
      if (outcome.kind === "wrong_current") return redirectWithFormError(request, "/settings", { fields: { current: "settings.wrongPassword" } });
      if (outcome.kind === "weak") return redirectWithFormError(request, "/settings", { fields: { password: "settings.passwordRules" }, params: { min: MIN_PASSWORD_LENGTH, max: MAX_PASSWORD_LENGTH } });
      // A new password ends every session, elsewhere and here; this browser gets a fresh one.
      return redirect("/settings?notice=password", [
        setCookie(request, deps.publicUrl(), SESSION_COOKIE, outcome.sessionToken, SESSION_MAX_MS / 1000, "lax"),
        setCookie(request, deps.publicUrl(), BROWSER_COOKIE, outcome.browserToken, BROWSER_COOKIE_MAX_AGE_S, "strict"),
      ]);
    })
    .post("/settings/sign-out-everywhere", async ({ request }) => {
      const { session } = await kit.readForm(request);
      await auth.signOutEverywhere(kit.actor(session));
      return redirect("/login", [setCookie(request, deps.publicUrl(), SESSION_COOKIE, "", 0, "lax")]);
    })
    .get("/settings/developers", ({ request }) => developersPage(request, kit.requireSession(request)))
    .post("/settings/developers/keys", async ({ request }) => {
      const { session, form } = await kit.readForm(request);
      const name = (form.get("name") ?? "").trim().slice(0, 100);
      const scopes = [...new Set(form.getAll("scope").filter(isScope))] as Scope[];
      const values = { name, scopes: scopes.join(" ") };
      if (!name || scopes.length === 0) {
        return redirectWithFormError(request, "/settings/developers", { fields: { ...(name ? {} : { name: "err.field.keyName" as const }), ...(scopes.length ? {} : { scope: "err.field.keyScopes" as const }) }, values });
      }
      let key: string;
      try {
        ({ key } = await auth.keys.create(kit.actor(session), { name, scopes }));
      } catch (error) {
        if (!(error instanceof ApiKeyLimitReached)) throw error;
        return redirectWithFormError(request, "/settings/developers", { fields: {}, form: "keys.tooMany", params: { max: error.max }, values });
      }
      // Post/redirect/get: the key is shown once on the page this redirects to; a reload makes no
      // second key and shows this one no more (shown-once.ts: never in a URL, a log or a cookie).
      return redirectShowingOnce(request, "/settings/developers", { name, key });
    })
    .post("/settings/developers/keys/:keyId/revoke", async ({ request, params }) => {
      const { session, form } = await kit.readForm(request);
      if (form.get("confirm") !== "yes") return redirectWithFormError(request, "/settings/developers", { fields: {}, form: "err.confirm.missing" });
      // Only the user's own key: another account's id is not found, and nothing is revoked.
      await auth.keys.revoke(kit.actor(session), params.keyId);
      return redirect("/settings/developers?notice=revoked");
    });
}
