import { AccessTokens } from "../auth/access-tokens.ts";
import { createApiKey, listApiKeys, renderApiKey, revokeApiKey } from "../auth/api-keys.ts";
import { isPlan, PLANS } from "../auth/plans.ts";
import { parseScopeList } from "../auth/scopes.ts";
import { loadOrCreateSigningKey } from "../auth/signing-key.ts";
import { createUser, findUserByEmail, listUsers, renderUser } from "../auth/users.ts";
import { DATA_DIR_OPTION, OAUTH_OPTIONS, oauthSettings } from "../config.ts";
import { openDatabase, type Db } from "../db/client.ts";
import { applyMigrations } from "../db/migrate.ts";
import { databasePath } from "../db/paths.ts";
import { resolve } from "node:path";
import { UsageError, type OptionSpec, type OptionValues } from "./options.ts";

export interface Command {
  usage: string;
  summary: string;
  options: OptionSpec[];
  run(values: OptionValues, out: (line: string) => void): Promise<void> | void;
}

const JSON_OPTION: OptionSpec = { name: "json", type: "bool", help: "Print JSON instead of text." };
const EMAIL_OPTION: OptionSpec = { name: "email", type: "string", required: true, help: "The user's email address." };

/** Admin commands open the same database as a running server; WAL and the busy timeout make that safe. */
function withDb<T>(values: OptionValues, work: (db: Db) => T): T {
  const db = openDatabase(databasePath(resolve(values["data-dir"] as string)));
  try {
    applyMigrations(db.$client);
    return work(db);
  } finally {
    db.$client.close();
  }
}

function requireUser(db: Db, email: string) {
  const user = findUserByEmail(db, email);
  if (!user) throw new UsageError(`no user with email ${email}; create one with: admin user create --email ${email}`);
  return user;
}

export const adminCommands: Record<string, Command> = {
  "user create": {
    usage: "verbatim admin user create --email E [--name N] [--plan free|standard|pro] [--json]",
    summary: "Create a user (an account).",
    options: [
      DATA_DIR_OPTION,
      EMAIL_OPTION,
      { name: "name", type: "string", help: "Display name." },
      { name: "plan", type: "string", default: "free", help: `Plan: ${PLANS.join(", ")}.` },
      JSON_OPTION,
    ],
    run(values, out) {
      const plan = values.plan as string;
      if (!isPlan(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(", ")}`);
      const user = withDb(values, (db) => {
        try {
          return createUser(db, { email: values.email as string, name: values.name as string | undefined, plan });
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
      });
      out(values.json ? JSON.stringify({ ...renderUser(user), plan: user.plan }) : `created user ${user.id} ${user.email} (${user.plan})`);
    },
  },
  "user list": {
    usage: "verbatim admin user list [--json]",
    summary: "List users.",
    options: [DATA_DIR_OPTION, JSON_OPTION],
    run(values, out) {
      const users = withDb(values, listUsers);
      if (values.json) out(JSON.stringify(users.map((u) => ({ ...renderUser(u), plan: u.plan }))));
      else for (const u of users) out(`${u.id}\t${u.email}\t${u.plan}\t${u.name ?? ""}`);
    },
  },
  "key create": {
    usage: "verbatim admin key create --email E --name N --scopes a,b,c|all [--json]",
    summary: "Create an API key for a user. The key is printed once and cannot be shown again.",
    options: [
      DATA_DIR_OPTION,
      EMAIL_OPTION,
      { name: "name", type: "string", required: true, help: "A name to tell the key apart." },
      { name: "scopes", type: "string", required: true, valueName: "a,b,c|all", help: "Scopes, comma-separated, or all." },
      JSON_OPTION,
    ],
    run(values, out) {
      let scopes;
      try {
        scopes = parseScopeList(values.scopes as string);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      const { row, key } = withDb(values, (db) =>
        createApiKey(db, { userId: requireUser(db, values.email as string).id, name: values.name as string, scopes }),
      );
      if (values.json) out(JSON.stringify({ id: row.id, key, name: row.name, scopes }));
      else out(`created key ${row.id} (${row.name}; ${scopes.join(", ")}). Shown only this once:\n  ${key}`);
    },
  },
  "key list": {
    usage: "verbatim admin key list [--email E] [--json]",
    summary: "List API keys (never the keys themselves).",
    options: [DATA_DIR_OPTION, { name: "email", type: "string", help: "Only this user's keys." }, JSON_OPTION],
    run(values, out) {
      const keys = withDb(values, (db) =>
        listApiKeys(db, values.email ? requireUser(db, values.email as string).id : undefined).map(renderApiKey),
      );
      if (values.json) out(JSON.stringify(keys));
      else for (const k of keys) out(`${k.id}\t${k.name}\t${k.key_hint}\t${k.revoked_at ? "revoked" : "active"}\t${k.scopes.join(",")}`);
    },
  },
  "key revoke": {
    usage: "verbatim admin key revoke --id KEY_ID [--json]",
    summary: "Revoke an API key; requests with it answer 401 from then on.",
    options: [DATA_DIR_OPTION, { name: "id", type: "string", required: true, help: "The key id (key_…)." }, JSON_OPTION],
    run(values, out) {
      const revoked = withDb(values, (db) => revokeApiKey(db, values.id as string));
      if (!revoked) throw new UsageError(`no active key with id ${values.id}`);
      out(values.json ? JSON.stringify({ id: values.id, revoked: true }) : `revoked ${values.id}`);
    },
  },
  "token create": {
    usage: "verbatim admin token create --email E --scopes a,b,c|all [--ttl 3600] [--json]",
    summary: "Mint an OAuth 2.1 access token (JWT) signed with this service's key, for a user.",
    options: [
      DATA_DIR_OPTION,
      EMAIL_OPTION,
      { name: "scopes", type: "string", required: true, valueName: "a,b,c|all", help: "Scopes, comma-separated, or all." },
      { name: "ttl", type: "int", default: "3600", help: "Lifetime in seconds." },
      { name: "client-id", type: "string", default: "verbatim-cli", help: "client_id claim (rate limits count per client)." },
      ...OAUTH_OPTIONS,
      JSON_OPTION,
    ],
    async run(values, out) {
      let scopes;
      try {
        scopes = parseScopeList(values.scopes as string);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      const ttl = values.ttl as number;
      if (ttl < 1) throw new UsageError("--ttl must be at least 1 second");
      const user = withDb(values, (db) => requireUser(db, values.email as string));
      const key = await loadOrCreateSigningKey(resolve(values["data-dir"] as string));
      const tokens = new AccessTokens(oauthSettings(values), key);
      const token = await tokens.mint({
        subject: user.id,
        email: user.email,
        scopes,
        ttlSeconds: ttl,
        clientId: values["client-id"] as string,
      });
      out(values.json ? JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: ttl, scope: scopes.join(" ") }) : token);
    },
  },
};
