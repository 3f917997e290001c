import { ApiKeyLimitReached, renderApiKey } from "../../auth/api-keys.ts";
import { AUDIT_ACTIONS } from "../../audit/actions.ts";
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from "../../auth/api-key-store.ts";
import { DATA_DIR_OPTION, DATABASE_URL_OPTION, MAX_API_KEYS_OPTION } from "../../config-options.ts";
import type { Command } from "../command.ts";
import { UsageError } from "../options.ts";
import { auditAdminAction, EMAIL_OPTION, JSON_OPTION, requireUser, SCOPES_OPTION, scopesOf, withConn } from "./shared.ts";

/** `admin key ...`: API keys, for any user (the web app's Developers page is each user's own). */
export const keyCommands: Record<string, Command> = {
  "key create": {
    usage: "verbatim admin key create --email E --name N --scopes a,b,c|all [--json]",
    summary: "Create an API key for a user. The key is printed once and cannot be shown again.",
    options: [
      DATA_DIR_OPTION,
      DATABASE_URL_OPTION,
      EMAIL_OPTION,
      { name: "name", type: "string", required: true, help: "A name to tell the key apart." },
      SCOPES_OPTION,
      MAX_API_KEYS_OPTION,
      JSON_OPTION,
    ],
    async run(values, out) {
      const scopes = scopesOf(values);
      const max = values["max-api-keys"] as number;
      if (max < 1) throw new UsageError("--max-api-keys must be at least 1");
      const { row, key } = await withConn(values, async (conn) => {
        const user = await requireUser(conn, values.email as string);
        try {
          const created = await createApiKey(conn, { userId: user.id, name: values.name as string, scopes }, Date.now(), max);
          await auditAdminAction(conn, user.id, AUDIT_ACTIONS.apiKeyCreated, { type: "api_key", id: created.row.id }, { scopes: scopes.join(" ") });
          return created;
        } catch (error) {
          if (error instanceof ApiKeyLimitReached) throw new UsageError(`${error.message} (--max-api-keys raises the bound)`);
          throw error;
        }
      });
      if (values.json) out(JSON.stringify({ id: row.id, key, name: row.name, scopes }));
      else out(`created key ${row.id} (${row.name}; ${scopes.join(", ")}). Shown only this once:\n  ${key}`);
    },
  },
  "key list": {
    usage: "verbatim admin key list [--email E] [--json]",
    summary: "List API keys (never the keys themselves).",
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, { name: "email", type: "string", help: "Only this user's keys." }, JSON_OPTION],
    async run(values, out) {
      const keys = await withConn(values, async (conn) =>
        (await listApiKeys(conn, values.email ? (await requireUser(conn, values.email as string)).id : undefined)).map(renderApiKey),
      );
      if (values.json) out(JSON.stringify(keys));
      else for (const k of keys) out(`${k.id}\t${k.name}\t${k.key_hint}\t${k.revoked_at ? "revoked" : "active"}\t${k.scopes.join(",")}`);
    },
  },
  "key revoke": {
    usage: "verbatim admin key revoke --id KEY_ID [--json]",
    summary: "Revoke an API key; requests with it answer 401 from then on.",
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, { name: "id", type: "string", required: true, help: "The key id (key_…)." }, JSON_OPTION],
    async run(values, out) {
      const revoked = await withConn(values, async (conn) => {
        const key = await getApiKey(conn, values.id as string);
        const done = await revokeApiKey(conn, values.id as string);
        if (done && key) await auditAdminAction(conn, key.userId, AUDIT_ACTIONS.apiKeyRevoked, { type: "api_key", id: key.id });
        return done;
      });
      if (!revoked) throw new UsageError(`no active key with id ${values.id}`);
      out(values.json ? JSON.stringify({ id: values.id, revoked: true }) : `revoked ${values.id}`);
    },
  },
};
