import { AUDIT_ACTIONS } from "../../audit/actions.ts";
import { NO_ACCOUNT } from "../../audit/types.ts";
import { AccessTokens, identifyOwnToken } from "../../auth/access-tokens.ts";
import { revokeToken } from "../../auth/revocation-store.ts";
import { loadOrCreateSigningKey, signingKeyDirOf, signingKeyPath } from "../../auth/signing-key.ts";
import { DATA_DIR_OPTION, DATABASE_URL_OPTION, OAUTH_OPTIONS, STORAGE_DIR_OPTION, storageDirOf, TOKEN_MAX_TTL_OPTION } from "../../config-options.ts";
import { LOCAL_TOKEN_ISSUER, oauthSettings, tokenMaxTtl } from "../../config.ts";
import { toRfc3339 } from "../../lib/time.ts";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "../command.ts";
import { UsageError } from "../options.ts";
import { auditAdminAction, EMAIL_OPTION, JSON_OPTION, requireUser, SCOPES_OPTION, scopesOf, withConn } from "./shared.ts";

/** Where the service keeps its signing key: on PostgreSQL the shared storage dir, else the data dir. */
function signingKeyDir(values: Record<string, unknown>): string {
  return signingKeyDirOf({ dataDir: resolve(values["data-dir"] as string), storageDir: resolve(storageDirOf(values)), shared: Boolean(values["database-url"]) });
}

/** `admin token ...`: OAuth access tokens this service signs, and their revocation. */
export const tokenCommands: Record<string, Command> = {
  "token create": {
    usage: "verbatim admin token create --email E --scopes a,b,c|all [--ttl 3600] [--token-max-ttl 86400] [--json]",
    summary:
      "Mint an OAuth 2.1 access token (JWT) signed with this service's key, for a user. It lives at most --token-max-ttl seconds; its id (jti) is printed (on stderr, or in --json) for admin token revoke.",
    options: [
      DATA_DIR_OPTION,
      DATABASE_URL_OPTION,
      STORAGE_DIR_OPTION,
      EMAIL_OPTION,
      SCOPES_OPTION,
      { name: "ttl", type: "int", default: "3600", help: "Lifetime in seconds, at most --token-max-ttl." },
      { name: "client-id", type: "string", default: "verbatim-cli", help: "client_id claim (rate limits count per client)." },
      ...OAUTH_OPTIONS,
      JSON_OPTION,
    ],
    async run(values, out) {
      const scopes = scopesOf(values);
      const settings = oauthSettings(values);
      const ttl = values.ttl as number;
      if (ttl < 1) throw new UsageError("--ttl must be at least 1 second");
      if (ttl > settings.maxLocalTtlSeconds) {
        throw new UsageError(
          `--ttl ${ttl} is above the longest token lifetime, ${settings.maxLocalTtlSeconds} seconds (--token-max-ttl, env VERBATIM_TOKEN_MAX_TTL; the server refuses longer-lived tokens)`,
        );
      }
      const user = await withConn(values, (conn) => requireUser(conn, values.email as string));
      const key = await loadOrCreateSigningKey(signingKeyDir(values));
      const tokens = new AccessTokens(settings, key);
      const minted = await tokens.mint({
        subject: user.id,
        email: user.email,
        scopes,
        ttlSeconds: ttl,
        clientId: values["client-id"] as string,
      });
      await withConn(values, (conn) => auditAdminAction(conn, user.id, AUDIT_ACTIONS.tokenMinted, { type: "oauth_token", id: minted.jti }, { scopes: scopes.join(" "), ttl }));
      const expiresAt = toRfc3339(minted.expiresAt * 1000);
      if (values.json) {
        out(
          JSON.stringify({
            access_token: minted.token,
            token_type: "Bearer",
            expires_in: ttl,
            scope: scopes.join(" "),
            jti: minted.jti,
            expires_at: expiresAt,
          }),
        );
        return;
      }
      // stdout carries the token alone, so TOKEN=$(verbatim admin token create ...) keeps working.
      out(minted.token);
      console.error(`token id (jti) ${minted.jti}, expires ${expiresAt}; revoke with: verbatim admin token revoke --jti ${minted.jti}`);
    },
  },
  "token revoke": {
    usage: "verbatim admin token revoke (--jti JTI | --token TOKEN) [--json]",
    summary:
      "Revoke an access token this service minted; requests with it answer 401 from then on, also on a running server. Give the token itself, or its jti (kept for --token-max-ttl then).",
    options: [
      DATA_DIR_OPTION,
      DATABASE_URL_OPTION,
      STORAGE_DIR_OPTION,
      { name: "jti", type: "string", help: "The token's id, as admin token create printed it." },
      { name: "token", type: "string", help: "The token itself (its signature is checked; its jti and expiry are read from it)." },
      TOKEN_MAX_TTL_OPTION,
      JSON_OPTION,
    ],
    async run(values, out) {
      const byJti = values.jti as string | undefined;
      const byToken = values.token as string | undefined;
      if ((byJti === undefined) === (byToken === undefined)) throw new UsageError("give exactly one of --jti and --token");
      const now = Date.now();
      let target: { jti: string; expiresAt: number };
      if (byToken !== undefined) {
        const keyDir = signingKeyDir(values);
        // Only this service's key can have signed a token worth revoking; never make one here.
        if (!existsSync(signingKeyPath(keyDir))) throw new UsageError("this data dir has no token-signing key, so no token of it can exist");
        const key = await loadOrCreateSigningKey(keyDir);
        try {
          const own = await identifyOwnToken(byToken.trim(), key, LOCAL_TOKEN_ISSUER);
          target = { jti: own.jti, expiresAt: own.expiresAt * 1000 };
        } catch (error) {
          throw new UsageError(`--token: ${(error as Error).message}`);
        }
      } else {
        const jti = byJti!.trim();
        if (jti === "" || jti.length > 200) throw new UsageError("--jti must be a token id of 1 to 200 characters");
        // The server refuses tokens living longer than the maximum (exp - iat), so a token revoked
        // now expires at the latest then; a minute more covers clock tolerance.
        target = { jti, expiresAt: now + tokenMaxTtl(values) * 1000 + 60_000 };
      }
      const fresh = await withConn(values, async (conn) => {
        const done = await revokeToken(conn, target.jti, target.expiresAt, now);
        // A revocation names a token id only, not whose it was: the trail files it under no account.
        if (done) await auditAdminAction(conn, NO_ACCOUNT, AUDIT_ACTIONS.tokenRevoked, { type: "oauth_token", id: target.jti });
        return done;
      });
      const until = toRfc3339(target.expiresAt);
      if (values.json) out(JSON.stringify({ jti: target.jti, revoked: true, already_revoked: !fresh, refused_until: until }));
      else out(`${fresh ? "revoked" : "already revoked"} token ${target.jti} (refused until ${until}, when it has expired anyway)`);
    },
  },
};
