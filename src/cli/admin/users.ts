import { AccountBusy, accountApp } from "../../account/app.ts";
import { isPlan, PLANS } from "../../auth/plans.ts";
import { renderUser } from "../../auth/users.ts";
import { setPasswordHash } from "../../auth/user-store.ts";
import { isRole, ROLES } from "../../auth/users.ts";
import { isAdminRefusal } from "../../admin/app.ts";
import { endAllWebSessions } from "../../auth/web-session-store.ts";
import { DATA_DIR_OPTION, DATABASE_URL_OPTION, PUBLIC_URL_OPTION, STORAGE_DIR_OPTION, storageDirOf } from "../../config-options.ts";
import { renderManagedUser } from "./accounts.ts";
import { liveNodeCount } from "../../nodes/store.ts";
import { localDiskStorage } from "../../storage/local-disk.ts";
import { withTx } from "../../db/conn.ts";
import { truncateWalWithin } from "../../db/wal-truncation.ts";
import { DataDirInUse, lockDataDir, type DataDirLock } from "../../db/data-dir-lock.ts";
import { resolve } from "node:path";
import type { Command } from "../command.ts";
import { CommandFailed, UsageError } from "../options.ts";
import { adminOf, EMAIL_OPTION, JSON_OPTION, LINK_HOURS_OPTION, linkTtlOf, openAdminConn, OPERATOR, PASSWORD_OPTION, passwordHashFrom, requireUser, withAdminApp, withConn } from "./shared.ts";

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

/** `admin user ...`: the accounts themselves. */
export const userCommands: Record<string, Command> = {
  "user create": {
    usage: "verbatim admin user create --email E [--name N] [--plan free|standard|pro] [--role user|admin] [--password P|- | --link --public-url URL [--link-hours 24]] [--json]",
    summary:
      "Create a user (an account). With --link, a one-time sign-in link is printed (once) for them to choose a password, so no password is typed at a shell; with --password the user can sign in to the web app at once.",
    options: [
      DATA_DIR_OPTION,
      DATABASE_URL_OPTION,
      EMAIL_OPTION,
      { name: "name", type: "string", help: "Display name." },
      { name: "plan", type: "string", default: "free", help: `Plan: ${PLANS.join(", ")}.` },
      { name: "role", type: "string", default: "user", help: `Role: ${ROLES.join(", ")} (an admin uses the web app's /admin console).` },
      PASSWORD_OPTION,
      { name: "link", type: "bool", help: "Print a one-time sign-in link (needs --public-url) instead of setting a password." },
      PUBLIC_URL_OPTION,
      LINK_HOURS_OPTION,
      JSON_OPTION,
    ],
    async run(values, out) {
      const plan = values.plan as string;
      if (!isPlan(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(", ")}`);
      const role = values.role as string;
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
      const link = values.link === true;
      if (link && values.password !== undefined) throw new UsageError("give --link or --password, not both");
      const linkTtlMs = linkTtlOf(values);
      const hash = values.password === undefined ? null : await passwordHashFrom(values.password as string);
      const { user, link: url } = await withAdminApp(values, (admin) =>
        admin.createUser(OPERATOR, { email: values.email as string, name: values.name as string | undefined, plan, role, link, passwordHash: hash, linkTtlMs }),
      );
      if (values.json) {
        out(JSON.stringify({ ...renderUser(user), plan: user.plan, role, ...(url ? { sign_in_link: url } : {}) }));
        return;
      }
      out(`created user ${user.id} ${user.email} (${user.plan})`);
      if (url) {
        out(`one-time sign-in link (shown only this once, works for ${linkTtlMs / 3600_000} h):`);
        out(`  ${url}`);
      }
    },
  },
  "user password": {
    usage: "verbatim admin user password --email E --password P|-",
    summary: "Set a user's web app password, and sign the user out of every browser.",
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, EMAIL_OPTION, { ...PASSWORD_OPTION, required: true }],
    async run(values, out) {
      const hash = await passwordHashFrom(values.password as string);
      const user = await withConn(values, (conn) =>
        withTx(conn, async (tx) => {
          const found = await requireUser(tx, values.email as string);
          await setPasswordHash(tx, found.id, hash);
          await endAllWebSessions(tx, found.id);
          return found;
        }),
      );
      out(`password set for ${user.email}; every session of this user has ended`);
    },
  },
  "user delete": {
    usage: "verbatim admin user delete --email E [--yes] [--json]",
    summary:
      "Delete a user (an account) and everything of it, for good: meetings with their recordings, transcripts, reports and documents, webhook endpoints, API keys, sessions. Its ledger lines stay, without its email or name. Refused while a running server has the account's jobs queued or processing.",
    options: [
      DATA_DIR_OPTION,
      DATABASE_URL_OPTION,
      STORAGE_DIR_OPTION,
      EMAIL_OPTION,
      { name: "yes", type: "bool", help: "Do not ask: without it, the email must be typed again on standard input." },
      JSON_OPTION,
    ],
    async run(values, out) {
      const dataDir = resolve(values["data-dir"] as string);
      const email = (values.email as string).trim().toLowerCase();
      // A server holding the data dir's lock may be running the account's jobs in its workers,
      // which this process cannot stop; without one, holding the lock keeps one from starting meanwhile.
      // On PostgreSQL other nodes may run them whatever this data dir's lock says: refused while any
      // node that runs jobs has a fresh heartbeat; with none, the jobs are only rows, as on SQLite.
      let lock: DataDirLock | undefined;
      try {
        lock = lockDataDir(dataDir);
      } catch (error) {
        if (!(error instanceof DataDirInUse)) throw error;
      }
      const conn = await openAdminConn(values);
      try {
        const user = await requireUser(conn, email);
        const { admin, flush } = adminOf(values, conn);
        // The last active administrator stays: the console would have nobody who may open it.
        await admin.assertDeletable(OPERATOR, user.id).catch((error) => {
          throw isAdminRefusal(error) ? new UsageError(error.message) : error;
        });
        if (!values.yes && !(await confirmedByTyping(user.email))) throw new UsageError("not confirmed: nothing was deleted (type the email again, or give --yes)");
        let deleted;
        try {
          const jobRunnersAlive = conn.dialect === "postgres" && (await liveNodeCount(conn, ["worker", "all"], Date.now())) > 0;
          deleted = await accountApp({ conn, storage: localDiskStorage(resolve(storageDirOf(values))) }).delete({ userId: user.id }, { refuseUnfinishedJobs: lock === undefined || jobRunnersAlive });
        } catch (error) {
          if (!(error instanceof AccountBusy)) throw error;
          throw new UsageError(
            `${user.email} has ${error.unfinishedJobs} queued or processing job(s) on the running server; nothing was deleted. Run this again once they have ended (GET /v1/jobs?status=processing), or while the server is stopped.`,
          );
        }
        await admin.deleted(OPERATOR, user.id, { meetings: deleted.meetings });
        await flush();
        // The deleting transaction's pages, and the frames of every earlier write of the account's
        // content, are in the WAL until a TRUNCATE checkpoint moves them into the main file (where
        // secure_delete zeroed them) and empties it; the running server's connections may hold it.
        if (!(await truncateWalWithin(conn, WAL_TRUNCATION_WITHIN_MS))) {
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
        await conn.close();
        lock?.release();
      }
    },
  },
  "user list": {
    usage: "verbatim admin user list [--json]",
    summary: "List users.",
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, JSON_OPTION],
    async run(values, out) {
      const users = await withAdminApp(values, (admin) => admin.users(OPERATOR));
      if (values.json) out(JSON.stringify(users.map(renderManagedUser)));
      else for (const u of users) out(`${u.id}\t${u.email}\t${u.plan}\t${u.name ?? ""}`);
    },
  },
};
