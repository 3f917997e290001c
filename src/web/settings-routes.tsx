import type { Elysia } from "elysia";
import { ApiKeyLimitReached, isScope, SESSION_MAX_MS, type Locale, type Scope, type WebSession } from "../auth/app.ts";
import { cookie, html, redirect, setCookie } from "./http.ts";
import { attemptRefusal, BROWSER_COOKIE, BROWSER_COOKIE_MAX_AGE_S, SESSION_COOKIE, type WebKit } from "./kit.ts";
import type { PageNotice } from "./layout.tsx";
import { DevelopersPage } from "./pages/developers.tsx";
import { SettingsPage } from "./pages/settings.tsx";

const SETTINGS_NOTICES = ["language", "password"];

/** Settings: profile, language, password, sessions; Developers: API keys. */
export function settingsPages(app: Elysia, kit: WebKit): void {
  const { deps, auth } = kit;

  const settingsPage = (request: Request, session: WebSession, status = 200, notice?: PageNotice, headers: Record<string, string> = {}) => {
    const frame = kit.frameFor(request, session, (t) => t("nav.settings"));
    const shown = notice ?? kit.noticeOf(request, frame.t, SETTINGS_NOTICES);
    const { user } = session;
    return html(<SettingsPage frame={frame} email={user.email} name={user.name} plan={user.plan} locale={session.locale} notice={shown} />, status, [], headers);
  };

  const developersPage = async (request: Request, session: WebSession, extra: { status?: number; createdKey?: { name: string; key: string }; notice?: PageNotice } = {}) => {
    const frame = kit.frameFor(request, session, (t) => t("settings.developers"));
    const notice = extra.notice ?? kit.noticeOf(request, frame.t, ["revoked"]);
    const keys = await auth.keys.list(kit.actor(session));
    // The page holding a new key is never kept by a cache or shown again by the back button.
    return html(<DevelopersPage frame={frame} keys={keys} createdKey={extra.createdKey} notice={notice} maxKeys={deps.maxApiKeys} />, extra.status ?? 200, [], { "cache-control": "no-store" });
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
      const t = kit.frameFor(request, session, () => "").t;
      // Guessing the current password here is a sign-in attempt: the same throttle and bounds count it.
      const outcome = await auth.changePassword(kit.actor(session), {
        current: form.get("current") ?? "",
        password: form.get("password") ?? "",
        clientKey: kit.clientKey(request),
        browserToken: cookie(request, BROWSER_COOKIE),
      });
      if (outcome.kind === "throttled" || outcome.kind === "busy") {
        const refusal = attemptRefusal(t, outcome);
        return settingsPage(request, session, 429, { text: refusal.text, error: true }, refusal.headers);
      }
      if (outcome.kind === "wrong_current") return settingsPage(request, session, 400, { text: t("settings.wrongPassword"), error: true });
      if (outcome.kind === "weak") return settingsPage(request, session, 400, { text: t("settings.passwordRules", { min: 10, max: 256 }), error: true });
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
      const t = kit.frameFor(request, session, () => "").t;
      const name = (form.get("name") ?? "").trim().slice(0, 100);
      const scopes = [...new Set(form.getAll("scope").filter(isScope))] as Scope[];
      if (!name || scopes.length === 0) return developersPage(request, session, { status: 400, notice: { text: t("keys.needNameAndScope"), error: true } });
      let key: string;
      try {
        ({ key } = await auth.keys.create(kit.actor(session), { name, scopes }));
      } catch (error) {
        if (!(error instanceof ApiKeyLimitReached)) throw error;
        return developersPage(request, session, { status: 409, notice: { text: t("keys.tooMany", { max: error.max }), error: true } });
      }
      return developersPage(request, session, { status: 201, createdKey: { name, key } });
    })
    .post("/settings/developers/keys/:keyId/revoke", async ({ request, params }) => {
      const { session } = await kit.readForm(request);
      // Only the user's own key: another account's id is not found, and nothing is revoked.
      await auth.keys.revoke(kit.actor(session), params.keyId);
      return redirect("/settings/developers?notice=revoked");
    });
}
