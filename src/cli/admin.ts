import { AccountBusy, deleteAccount } from "../account/delete.ts";
import { AccessTokens, identifyOwnToken } from "../auth/access-tokens.ts";
import { ApiKeyLimitReached, createApiKey, listApiKeys, renderApiKey, revokeApiKey } from "../auth/api-keys.ts";
import { isPlan, PLANS } from "../auth/plans.ts";
import { parseScopeList } from "../auth/scopes.ts";
import { revokeToken } from "../auth/revocations.ts";
import { loadOrCreateSigningKey, signingKeyPath } from "../auth/signing-key.ts";
import { createUser, findUserByEmail, listUsers, renderUser, setPasswordHash, setUserPlan } from "../auth/users.ts";
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from "../auth/passwords.ts";
import { endAllWebSessions } from "../auth/web-sessions.ts";
import { grantCredits, setSpendCap } from "../usage/accounts.ts";
import { DATA_DIR_OPTION, MAX_API_KEYS_OPTION, OAUTH_OPTIONS, TOKEN_MAX_TTL_OPTION } from "../config-options.ts";
import { LOCAL_TOKEN_ISSUER, oauthSettings, tokenMaxTtl } from "../config.ts";
import { openDatabase, type Db } from "../db/client.ts";
import { applyMigrations } from "../db/migrate.ts";
import { databasePath } from "../db/paths.ts";
import { connOf } from "../db/conn.ts";
import { truncateWalWithin } from "../db/wal-truncation.ts";
import { DataDirInUse, lockDataDir, type DataDirLock } from "../db/data-dir-lock.ts";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { toRfc3339 } from "../lib/time.ts";
import { CommandFailed, UsageError, type OptionSource, type OptionSpec, type OptionValues } from "./options.ts";

export interface Command {
  usage: string;
  summary: string;
  options: OptionSpec[];
  /** The option that words after the command name fill (joined by commas): `models install a b`. */
  positional?: string;
  /** `context.sources`: where each option's value came from (flag, env, file, default). */
  run(values: OptionValues, out: (line: string) => void, context?: { sources: Map<string, OptionSource> }): Promise<void> | void;
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

const PASSWORD_OPTION: OptionSpec = {
  name: "password",
  type: "string",
  valueName: "P|-",
  help: `Web app password (${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters); - reads it from standard input, which keeps it out of the process list and shell history.`,
};

/** The Argon2id hash of the password given (or read from stdin for "-"), refused when too short or long. */
async function passwordHashFrom(value: string): Promise<string> {
  const password = value === "-" ? (await new Response(Bun.stdin.stream()).text()).replace(/\r?\n$/, "") : value;
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(problem);
  return hashPassword(password);
}

/** How long `user delete` keeps trying to empty the WAL while the running server's connections read. */
const WAL_TRUNCATION_WITHIN_MS = 30_000;

/** Asks on the terminal (stderr) for the email again; true when the line read from stdin is that email. */
async function confirmedByTyping(email: string): Promise<boolean> {
  process.stderr.write(`This deletes ${email} and everything of the account, for good. Type the email to confirm: `);
  let typed = "";
  for await (const line of console) {
    typed = line;
    break;
  }
  // Piped in, the answer is not echoed: end the prompt's line.
  if (!process.stdin.isTTY) process.stderr.write("\n");
  return typed.trim().toLowerCase() === email;
}

export const adminCommands: Record<string, Command> = {
  "user create": {
    usage: "verbatim admin user create --email E [--name N] [--plan free|standard|pro] [--password P|-] [--json]",
    summary: "Create a user (an account). With --password the user can sign in to the web app.",
    options: [
      DATA_DIR_OPTION,
      EMAIL_OPTION,
      { name: "name", type: "string", help: "Display name." },
      { name: "plan", type: "string", default: "free", help: `Plan: ${PLANS.join(", ")}.` },
      PASSWORD_OPTION,
      JSON_OPTION,
    ],
    async run(values, out) {
      const plan = values.plan as string;
      if (!isPlan(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(", ")}`);
      const hash = values.password === undefined ? null : await passwordHashFrom(values.password as string);
      const user = withDb(values, (db) => {
        try {
          const created = createUser(db, { email: values.email as string, name: values.name as string | undefined, plan });
          if (hash) setPasswordHash(db, created.id, hash);
          return created;
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
      });
      out(values.json ? JSON.stringify({ ...renderUser(user), plan: user.plan }) : `created user ${user.id} ${user.email} (${user.plan})`);
    },
  },
  "user password": {
    usage: "verbatim admin user password --email E --password P|-",
    summary: "Set a user's web app password, and sign the user out of every browser.",
    options: [DATA_DIR_OPTION, EMAIL_OPTION, { ...PASSWORD_OPTION, required: true }],
    async run(values, out) {
      const hash = await passwordHashFrom(values.password as string);
      const user = withDb(values, (db) => {
        const found = requireUser(db, values.email as string);
        setPasswordHash(db, found.id, hash);
        endAllWebSessions(db, found.id);
        return found;
      });
      out(`password set for ${user.email}; every session of this user has ended`);
    },
  },
  "user delete": {
    usage: "verbatim admin user delete --email E [--yes] [--json]",
    summary:
      "Delete a user (an account) and everything of it, for good: meetings with their recordings, transcripts, reports and documents, webhook endpoints, API keys, sessions. Its ledger lines stay, without its email or name. Refused while a running server has the account's jobs queued or processing.",
    options: [
      DATA_DIR_OPTION,
      EMAIL_OPTION,
      { name: "yes", type: "bool", help: "Do not ask: without it, the email must be typed again on standard input." },
      JSON_OPTION,
    ],
    async run(values, out) {
      const dataDir = resolve(values["data-dir"] as string);
      const email = (values.email as string).trim().toLowerCase();
      // A server holding the data dir's lock may be running the account's jobs in its workers,
      // which this process cannot stop; without one, holding the lock keeps one from starting meanwhile.
      let lock: DataDirLock | undefined;
      try {
        lock = lockDataDir(dataDir);
      } catch (error) {
        if (!(error instanceof DataDirInUse)) throw error;
      }
      const db = openDatabase(databasePath(dataDir));
      try {
        applyMigrations(db.$client);
        const user = requireUser(db, email);
        if (!values.yes && !(await confirmedByTyping(user.email))) throw new UsageError("not confirmed: nothing was deleted (type the email again, or give --yes)");
        let deleted;
        try {
          deleted = deleteAccount(db, dataDir, user.id, { refuseUnfinishedJobs: lock === undefined });
        } catch (error) {
          if (!(error instanceof AccountBusy)) throw error;
          throw new UsageError(
            `${user.email} has ${error.unfinishedJobs} queued or processing job(s) on the running server; nothing was deleted. Run this again once they have ended (GET /v1/jobs?status=processing), or while the server is stopped.`,
          );
        }
        // The deleting transaction's pages, and the frames of every earlier write of the account's
        // content, are in the WAL until a TRUNCATE checkpoint moves them into the main file (where
        // secure_delete zeroed them) and empties it; the running server's connections may hold it.
        if (!(await truncateWalWithin(connOf(db), WAL_TRUNCATION_WITHIN_MS))) {
          throw new CommandFailed(
            `deleted ${user.email}, but the running server kept reading the database for ${WAL_TRUNCATION_WITHIN_MS / 1000} s, so its write-ahead log (verbatim.db-wal) may still hold the account's earlier content until the server's next deletion or until it stops`,
          );
        }
        if (values.json) out(JSON.stringify({ id: user.id, email: user.email, deleted: true, meetings: deleted.meetings, ledger_lines_kept: deleted.ledgerLinesKept }));
        else {
          out(`deleted user ${user.id} ${user.email}: ${deleted.meetings} meeting(s) and everything else of the account`);
          if (deleted.ledgerLinesKept) out(`kept its ${deleted.ledgerLinesKept} ledger line(s) (immutable: ids, quantities and money) under ${user.id}, without email or name`);
        }
      } finally {
        db.$client.close();
        lock?.release();
      }
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
  "plan set": {
    usage: "verbatim admin plan set --email E --plan free|standard|pro [--json]",
    summary: "Move a user to another plan: its monthly allowance, processing slots and rate limits.",
    options: [DATA_DIR_OPTION, EMAIL_OPTION, { name: "plan", type: "string", required: true, help: `Plan: ${PLANS.join(", ")}.` }, JSON_OPTION],
    run(values, out) {
      const plan = values.plan as string;
      if (!isPlan(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(", ")}`);
      const user = withDb(values, (db) => {
        const found = requireUser(db, values.email as string);
        setUserPlan(db, found.id, plan);
        return found;
      });
      out(values.json ? JSON.stringify({ id: user.id, email: user.email, plan }) : `${user.email} is on the ${plan} plan`);
    },
  },
  "cap set": {
    usage: "verbatim admin cap set --email E --cap MINOR|none [--json]",
    summary: "Turn on-demand billing on with a monthly spend cap (minor units, e.g. cents), or off with none.",
    options: [DATA_DIR_OPTION, EMAIL_OPTION, { name: "cap", type: "string", required: true, valueName: "MINOR|none", help: "The monthly spend cap in minor units, or none." }, JSON_OPTION],
    run(values, out) {
      const text = values.cap as string;
      const cap = text === "none" ? null : /^\d{1,12}$/.test(text) ? Number(text) : undefined;
      if (cap === undefined) throw new UsageError("--cap must be a whole number of minor units, or none");
      const user = withDb(values, (db) => {
        const found = requireUser(db, values.email as string);
        setSpendCap(db, found.id, cap, Date.now());
        return found;
      });
      out(values.json ? JSON.stringify({ id: user.id, email: user.email, spend_cap: cap }) : cap === null ? `on-demand billing is off for ${user.email}` : `${user.email} may spend up to ${cap} minor units a month on demand`);
    },
  },
  "credits grant": {
    usage: "verbatim admin credits grant --email E --amount MINOR [--note TEXT] [--json]",
    summary: "Add credits (minor units) to a user's wallet for the current UTC month.",
    options: [
      DATA_DIR_OPTION,
      EMAIL_OPTION,
      { name: "amount", type: "int", required: true, help: "Minor units (e.g. cents), at least 1." },
      { name: "note", type: "string", help: "Why, for the record." },
      JSON_OPTION,
    ],
    run(values, out) {
      const amount = Number(values.amount);
      if (!Number.isInteger(amount) || amount < 1 || amount > 1e12) throw new UsageError("--amount must be a whole number of minor units, at least 1");
      const { user, period } = withDb(values, (db) => {
        const found = requireUser(db, values.email as string);
        return { user: found, ...grantCredits(db, found.id, amount, (values.note as string | undefined) ?? null, Date.now()) };
      });
      out(values.json ? JSON.stringify({ id: user.id, email: user.email, amount, period }) : `granted ${amount} minor units to ${user.email} for ${period}`);
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
      MAX_API_KEYS_OPTION,
      JSON_OPTION,
    ],
    run(values, out) {
      let scopes;
      try {
        scopes = parseScopeList(values.scopes as string);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      const max = values["max-api-keys"] as number;
      if (max < 1) throw new UsageError("--max-api-keys must be at least 1");
      const { row, key } = withDb(values, (db) => {
        try {
          return createApiKey(db, { userId: requireUser(db, values.email as string).id, name: values.name as string, scopes }, Date.now(), max);
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
    usage: "verbatim admin token create --email E --scopes a,b,c|all [--ttl 3600] [--token-max-ttl 86400] [--json]",
    summary:
      "Mint an OAuth 2.1 access token (JWT) signed with this service's key, for a user. It lives at most --token-max-ttl seconds; its id (jti) is printed (on stderr, or in --json) for admin token revoke.",
    options: [
      DATA_DIR_OPTION,
      EMAIL_OPTION,
      { name: "scopes", type: "string", required: true, valueName: "a,b,c|all", help: "Scopes, comma-separated, or all." },
      { name: "ttl", type: "int", default: "3600", help: "Lifetime in seconds, at most --token-max-ttl." },
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
      const settings = oauthSettings(values);
      const ttl = values.ttl as number;
      if (ttl < 1) throw new UsageError("--ttl must be at least 1 second");
      if (ttl > settings.maxLocalTtlSeconds) {
        throw new UsageError(
          `--ttl ${ttl} is above the longest token lifetime, ${settings.maxLocalTtlSeconds} seconds (--token-max-ttl, env VERBATIM_TOKEN_MAX_TTL; the server refuses longer-lived tokens)`,
        );
      }
      const user = withDb(values, (db) => requireUser(db, values.email as string));
      const key = await loadOrCreateSigningKey(resolve(values["data-dir"] as string));
      const tokens = new AccessTokens(settings, key);
      const minted = await tokens.mint({
        subject: user.id,
        email: user.email,
        scopes,
        ttlSeconds: ttl,
        clientId: values["client-id"] as string,
      });
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
        const dataDir = resolve(values["data-dir"] as string);
        // Only this data dir's key can have signed a token worth revoking; never make one here.
        if (!existsSync(signingKeyPath(dataDir))) throw new UsageError("this data dir has no token-signing key, so no token of it can exist");
        const key = await loadOrCreateSigningKey(dataDir);
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
      const fresh = withDb(values, (db) => revokeToken(db, target.jti, target.expiresAt, now));
      const until = toRfc3339(target.expiresAt);
      if (values.json) out(JSON.stringify({ jti: target.jti, revoked: true, already_revoked: !fresh, refused_until: until }));
      else out(`${fresh ? "revoked" : "already revoked"} token ${target.jti} (refused until ${until}, when it has expired anyway)`);
    },
  },
};
