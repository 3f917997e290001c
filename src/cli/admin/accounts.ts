import type { ManagedUser } from "../../admin/app.ts";
import { isRole, ROLES } from "../../auth/users.ts";
import { DATA_DIR_OPTION, DATABASE_URL_OPTION, PUBLIC_URL_OPTION, SERVE_OPTIONS } from "../../config-options.ts";
import { serviceConfig } from "../../config.ts";
import { toRfc3339 } from "../../lib/time.ts";
import type { Command } from "../command.ts";
import { UsageError } from "../options.ts";
import { EMAIL_OPTION, JSON_OPTION, LINK_HOURS_OPTION, linkTtlOf, OPERATOR, requireManagedUser, withAdminApp } from "./shared.ts";

/** A user as `admin user list --json` and the other account commands print it. */
export function renderManagedUser(u: ManagedUser) {
  return {
    id: u.id,
    object: "user",
    email: u.email,
    name: u.name,
    created_at: toRfc3339(u.createdAt),
    plan: u.plan,
    role: u.role,
    disabled: u.disabledAt !== null,
    disabled_at: u.disabledAt === null ? null : toRfc3339(u.disabledAt),
    last_sign_in_at: u.lastSignInAt === null ? null : toRfc3339(u.lastSignInAt),
  };
}

/** `admin user disable` and `admin user enable`: the same command but for the use case and what it says. */
function accessCommand(verb: "disable" | "enable", summary: string, said: string): Command {
  return {
    usage: `verbatim admin user ${verb} --email E [--json]`,
    summary,
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, EMAIL_OPTION, JSON_OPTION],
    async run(values, out) {
      const user = await withAdminApp(values, async (admin, conn) => {
        const found = await requireManagedUser(admin, conn, values.email as string);
        await admin[verb](OPERATOR, found.id);
        return admin.user(OPERATOR, found.id);
      });
      out(values.json ? JSON.stringify(renderManagedUser(user)) : `${user.email} ${said}`);
    },
  };
}

/**
 * `admin user role|disable|enable|link`, `admin usage`, `admin status`: what the web app's
 * administration console does, from the shell, through the same use cases (admin/app.ts).
 */
export const accountCommands: Record<string, Command> = {
  "user role": {
    usage: "verbatim admin user role --email E --role admin|user [--json]",
    summary: "Make a user an administrator (the web app's /admin console), or an administrator a user again. The last active administrator stays one.",
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, EMAIL_OPTION, { name: "role", type: "string", required: true, help: `Role: ${ROLES.join(", ")}.` }, JSON_OPTION],
    async run(values, out) {
      const role = values.role as string;
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
      const user = await withAdminApp(values, async (admin, conn) => {
        const found = await requireManagedUser(admin, conn, values.email as string);
        await admin.setRole(OPERATOR, found.id, role);
        return admin.user(OPERATOR, found.id);
      });
      out(values.json ? JSON.stringify(renderManagedUser(user)) : `${user.email} is now ${role === "admin" ? "an administrator" : "a user"}`);
    },
  },
  "user disable": accessCommand(
    "disable",
    "Disable a user: no sign-in (password, single sign-on or link), every session ends, and their API keys and access tokens are refused (401) until enabled again. The last active administrator cannot be disabled.",
    "is disabled; every session of this user has ended",
  ),
  "user enable": accessCommand("enable", "Enable a disabled user again: they sign in as before, and their API keys work again.", "is enabled"),
  "user link": {
    usage: "verbatim admin user link --email E --public-url URL [--link-hours 24] [--json]",
    summary:
      "Reset a user's sign-in: every session ends, the password is cleared, and a new one-time sign-in link is printed (once) for them to choose a password. Only the link's SHA-256 is stored.",
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, EMAIL_OPTION, PUBLIC_URL_OPTION, LINK_HOURS_OPTION, JSON_OPTION],
    async run(values, out) {
      const ttl = linkTtlOf(values);
      const { user, link } = await withAdminApp(values, async (admin, conn) => {
        const found = await requireManagedUser(admin, conn, values.email as string);
        return { user: found, link: await admin.resetSignIn(OPERATOR, found.id, ttl) };
      });
      if (values.json) out(JSON.stringify({ id: user.id, email: user.email, sign_in_link: link, expires_in_hours: ttl / 3600_000 }));
      else {
        out(`sign-in reset for ${user.email}: every session has ended and the password is cleared`);
        out(`one-time sign-in link (shown only this once, works for ${ttl / 3600_000} h):`);
        out(`  ${link}`);
      }
    },
  },
  usage: {
    usage: "verbatim admin usage [--from YYYY-MM] [--to YYYY-MM] [--json]",
    summary: "The firm's usage per user and month, from the ledger: audio minutes, reports, documents and amount (minor units). By default the last three months.",
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, { name: "from", type: "string", help: "First month (YYYY-MM)." }, { name: "to", type: "string", help: "Last month (YYYY-MM)." }, JSON_OPTION],
    async run(values, out) {
      const usage = await withAdminApp(values, (admin) => admin.usage(OPERATOR, { from: values.from as string | undefined, to: values.to as string | undefined }));
      const rows = usage.rows.map((r) => ({
        user_id: r.userId,
        email: r.email,
        period: r.period,
        audio_minutes: Math.round((r.audioSeconds / 60) * 10) / 10,
        reports: r.reports,
        documents: r.documents,
        amount: r.amount,
      }));
      if (values.json) out(JSON.stringify({ from: usage.from, to: usage.to, data: rows }));
      else for (const r of rows) out(`${r.period}\t${r.email}\t${r.audio_minutes} min\t${r.reports} report(s)\t${r.documents} document(s)\t${r.amount}`);
    },
  },
  status: {
    usage: "verbatim admin status [serve options] [--json]",
    summary:
      "The service's state, as the console's status page shows it: models (and whether any is a development stand-in), disk space, jobs queued and processing, live nodes, webhook endpoints disabled by failures.",
    options: [...SERVE_OPTIONS, JSON_OPTION],
    async run(values, out) {
      const config = serviceConfig(values);
      const status = await withAdminApp(values, (admin) => admin.status(OPERATOR), {
        modelsDir: config.engineSettings.modelsDir,
        models: config.engineSettings.models,
        dataDir: config.dataDir,
        storageDir: config.storageDir,
        minFreeDisk: config.minFreeDisk,
      });
      if (values.json) {
        out(JSON.stringify(status));
        return;
      }
      for (const m of status.models) out(`model ${m.role}: ${m.name} ${m.state}${m.standIn ? " (development stand-in)" : ""}`);
      for (const d of status.disks) out(`disk ${d.path}: ${Math.floor(d.freeBytes / 1e6)} MB free of ${Math.floor(d.totalBytes / 1e6)} MB (reserve ${Math.floor(d.floorBytes / 1e6)} MB)`);
      out(`jobs: ${status.queue.map((q) => `${q.kind} ${q.status} ${q.n}`).join(", ") || "none queued or processing"}`);
      for (const n of status.nodes) out(`node ${n.id} (${n.role}) on ${n.hostname}: ${n.runningJobs} job(s) running`);
      out(`webhook endpoints disabled: ${status.disabledWebhooks.map((w) => `${w.email} ${w.endpoints}`).join(", ") || "none"}`);
    },
  },
};
