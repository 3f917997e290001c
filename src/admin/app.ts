import { basename, isAbsolute } from "node:path";
import type { Actor } from "../auth/actor.ts";
import { isPlan, PLANS, type Plan } from "../auth/plans.ts";
import { createSignInLink, dropSignInLinks, SIGN_IN_LINK_TTL_MS } from "../auth/sign-in-link-store.ts";
import { addUser, setPasswordHash, setUserPlan } from "../auth/user-store.ts";
import type { Role, User } from "../auth/users.ts";
import { endAllWebSessions } from "../auth/web-session-store.ts";
import { withTx, type DbConn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { Clock } from "../lib/time.ts";
import { jobsInFlight, jobsPerNode } from "../metrics/store.ts";
import { configuredModels, type ConfiguredModel } from "../models/catalogue.ts";
import { liveNodes } from "../nodes/store.ts";
import { diskSpace, floorBytes, type DiskFloor } from "../storage/disk-space.ts";
import { periodOf } from "../usage/settings.ts";
import { usageAdminApp } from "../usage/app.ts";
import { disabledWebhookEndpoints } from "./status-store.ts";
import { monthlyUse, type MonthlyUse } from "./usage-store.ts";
import { assertOtherAdminRemains, clearPassword, getManagedUser, isActiveAdmin, LastAdmin, listManagedUsers, setDisabled, setRole, type ManagedUser } from "./users-store.ts";
import { listAuditEntries, type AuditFilter, type AuditPage } from "../audit/store.ts";
import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, adminCliEntry, type AuditDetail, type AuditTrail } from "../audit/types.ts";

export { LastAdmin, type ManagedUser } from "./users-store.ts";
export { AUDIT_ACTION_KINDS } from "../audit/actions.ts";
export type { AuditFilter, AuditPage, AuditRow } from "../audit/store.ts";
export type { MonthlyUse } from "./usage-store.ts";

/**
 * Who asks: an administrator signed in to the web app (the console), or the operator at the
 * server's shell (`verbatim admin …`, which anyone who can read the data dir may run anyway).
 */
export type AdminCaller = { actor: Actor } | { cli: { operator: string | null } };

/** A request the administrator must change: its sentence says what (shown by the console, printed by the CLI). */
export class AdminRefusal extends Error {
  constructor(
    readonly reason: "bad_email" | "email_taken" | "bad_amount" | "bad_plan" | "bad_period",
    message: string,
  ) {
    super(message);
    this.name = "AdminRefusal";
  }
}

/** The most users the console lists, and the most rows of its usage table: a firm, not a consumer service. */
export const MAX_LISTED_USERS = 5000;
export const MAX_USAGE_ROWS = 5000;
/** The longest span of months the usage table covers at once. */
export const MAX_USAGE_MONTHS = 24;
/** Credits and caps are minor units: at most this (ten billion in major units: a typo guard). */
export const MAX_MINOR_UNITS = 1e12;

/** What the service's status page reports (admin status, /admin/status). */
export interface ServiceStatus {
  models: ConfiguredModel[];
  disks: Array<{ path: "data" | "storage"; freeBytes: number; totalBytes: number; floorBytes: number }>;
  /** Jobs queued or processing, by kind and status. */
  queue: Array<{ kind: string; status: string; n: number }>;
  /** The processes serving the database (one on SQLite), with the jobs each runs. */
  nodes: Array<{ id: string; role: string; hostname: string; heartbeatAt: number; runningJobs: number }>;
  /** This process's worker pool, when it runs jobs. */
  workers: { size: number; ready: number; started: number; crashed: number } | null;
  disabledWebhooks: Array<{ userId: string; email: string; endpoints: number }>;
}

export interface AdminDeps {
  conn: DbConn;
  clock: Clock;
  audit: AuditTrail;
  /** The service's public URL (--public-url): sign-in links are built on it. */
  publicUrl(): string;
  /** Users were disabled, enabled or moved to another plan on this process's connection: the API's cached key answers must not outlive that. */
  onCredentialsChanged(): void;
  /** Where the status page looks (the CLI gives it only to `admin status`). */
  status?: {
    modelsDir: string;
    models: object;
    dataDir: string;
    storageDir: string;
    minFreeDisk: DiskFloor;
    workers?: () => { size: number; ready: number; started: number; crashed: number };
  };
}

export type AdminApp = ReturnType<typeof adminApp>;

/**
 * The administration use cases, one place for the console (web/admin-routes.tsx) and the CLI
 * (cli/admin/*): every one checks its caller is an administrator (a signed-in user who is not is
 * told the page does not exist), does its change, and records it in the audit trail under the
 * account it is about.
 */
export function adminApp(deps: AdminDeps) {
  const { conn, clock } = deps;
  const billing = usageAdminApp({ conn, clock });

  /** A signed-in caller who is not an active admin learns nothing: the console does not exist for them. */
  const assertAdmin = async (by: AdminCaller): Promise<void> => {
    if ("actor" in by && !(await isActiveAdmin(conn, by.actor.account.userId))) throw ApiError.notFound("The page");
  };

  /** An entry under the account the action was about: the console's admin as the actor, or the shell's operator. */
  const record = (by: AdminCaller, accountId: string, action: string, detail?: AuditDetail) => {
    const resource = { type: "user", id: accountId };
    deps.audit.record("actor" in by ? { ...actorEntry(by.actor, action, resource, detail), accountId } : adminCliEntry(accountId, action, resource, by.cli.operator, detail));
  };

  /** The user an id names (another id, or a deleted account's, is not found). */
  const target = async (userId: string): Promise<ManagedUser> => {
    const found = await getManagedUser(conn, userId);
    if (!found) throw ApiError.notFound("The user");
    return found;
  };

  const linkUrl = (base: string, token: string) => `${base.replace(/\/+$/, "")}/login/link/${token}`;

  const checkMinor = (amount: number, least: number, what: string) => {
    if (!Number.isInteger(amount) || amount < least || amount > MAX_MINOR_UNITS) {
      throw new AdminRefusal("bad_amount", `${what} must be a whole number of minor units from ${least} to ${MAX_MINOR_UNITS}.`);
    }
  };

  return {
    /** Whether the caller may open the console (the layout's link); never throws. */
    async isAdmin(actor: Actor): Promise<boolean> {
      return isActiveAdmin(conn, actor.account.userId);
    },

    async users(by: AdminCaller): Promise<ManagedUser[]> {
      await assertAdmin(by);
      return listManagedUsers(conn, MAX_LISTED_USERS);
    },

    async user(by: AdminCaller, userId: string): Promise<ManagedUser> {
      await assertAdmin(by);
      return target(userId);
    },

    /**
     * Creates a user; with `link`, also a one-time sign-in link (its URL, shown once) that lets
     * them choose a password. `passwordHash`: the CLI's --password, already hashed.
     */
    async createUser(
      by: AdminCaller,
      input: { email: string; name?: string | null; plan: Plan | string; role?: Role; link: boolean; passwordHash?: string | null; linkTtlMs?: number },
    ): Promise<{ user: User; link: string | null }> {
      await assertAdmin(by);
      const plan = input.plan;
      if (!isPlan(plan)) throw new AdminRefusal("bad_plan", `The plan must be one of ${PLANS.join(", ")}.`);
      const email = input.email.trim().toLowerCase();
      if (email.length > 320 || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new AdminRefusal("bad_email", "That is not an email address.");
      const name = input.name?.trim().slice(0, 200) || null;
      // Where the link will point, asked first: without a public URL nothing is created.
      const linkBase = input.link ? deps.publicUrl() : null;
      const now = clock.now();
      const created = await withTx(conn, async (tx) => {
        let user: User;
        try {
          user = await addUser(tx, { email, name, plan, role: input.role ?? "user" }, now);
        } catch (error) {
          throw new AdminRefusal("email_taken", (error as Error).message);
        }
        if (input.passwordHash) await setPasswordHash(tx, user.id, input.passwordHash);
        const token = input.link ? await createSignInLink(tx, user.id, now, input.linkTtlMs ?? SIGN_IN_LINK_TTL_MS) : null;
        return { user, token };
      });
      record(by, created.user.id, AUDIT_ACTIONS.userCreated, { plan, role: input.role ?? "user", link: input.link });
      return { user: created.user, link: created.token && linkBase !== null ? linkUrl(linkBase, created.token) : null };
    },

    /**
     * Disables a user: no sign-in (password, single sign-on, a link), every session ends, API keys
     * and access tokens are refused while disabled. Never the last active administrator.
     */
    async disable(by: AdminCaller, userId: string): Promise<void> {
      await assertAdmin(by);
      await target(userId);
      const changed = await withTx(conn, async (tx) => {
        await assertOtherAdminRemains(tx, userId);
        if (!(await setDisabled(tx, userId, clock.now()))) return false;
        await endAllWebSessions(tx, userId);
        await dropSignInLinks(tx, userId);
        return true;
      });
      deps.onCredentialsChanged();
      if (changed) record(by, userId, AUDIT_ACTIONS.userDisabled);
    },

    /** Enables a disabled user again: their API keys work again; they sign in as before. */
    async enable(by: AdminCaller, userId: string): Promise<void> {
      await assertAdmin(by);
      await target(userId);
      const changed = await setDisabled(conn, userId, null);
      deps.onCredentialsChanged();
      if (changed) record(by, userId, AUDIT_ACTIONS.userEnabled);
    },

    /**
     * Resets a user's sign-in: every session ends, the password is cleared, and a new one-time
     * link (its URL, shown once) lets them choose another.
     */
    async resetSignIn(by: AdminCaller, userId: string, linkTtlMs = SIGN_IN_LINK_TTL_MS): Promise<string> {
      await assertAdmin(by);
      await target(userId);
      const base = deps.publicUrl();
      const now = clock.now();
      const token = await withTx(conn, async (tx) => {
        await clearPassword(tx, userId);
        await endAllWebSessions(tx, userId);
        return createSignInLink(tx, userId, now, linkTtlMs);
      });
      record(by, userId, AUDIT_ACTIONS.signInReset);
      return linkUrl(base, token);
    },

    /** Makes a user an administrator, or an administrator a user again (never the last active one). */
    async setRole(by: AdminCaller, userId: string, role: Role): Promise<void> {
      await assertAdmin(by);
      const before = await target(userId);
      if (before.role === role) return;
      await withTx(conn, async (tx) => {
        if (role !== "admin") await assertOtherAdminRemains(tx, userId);
        await setRole(tx, userId, role);
      });
      record(by, userId, AUDIT_ACTIONS.roleChanged, { role });
    },

    /** Refuses (LastAdmin) to delete the last active administrator; the deletion is account/app.ts's. */
    async assertDeletable(by: AdminCaller, userId: string): Promise<void> {
      await assertAdmin(by);
      await assertOtherAdminRemains(conn, userId);
    },

    /** Records a deletion the CLI made (account/app.ts deletes). */
    async deleted(by: AdminCaller, userId: string, detail: { meetings: number }): Promise<void> {
      record(by, userId, AUDIT_ACTIONS.userDeleted, detail);
    },

    /** Moves a user to another plan (a name from a form is checked here). */
    async setPlan(by: AdminCaller, userId: string, plan: Plan | string): Promise<void> {
      await assertAdmin(by);
      if (!isPlan(plan)) throw new AdminRefusal("bad_plan", `The plan must be one of ${PLANS.join(", ")}.`);
      await target(userId);
      await setUserPlan(conn, userId, plan);
      // A key's cached answer carries the user's plan (its rate limits and allowance).
      deps.onCredentialsChanged();
      record(by, userId, AUDIT_ACTIONS.planChanged, { plan });
    },

    /** Credits (minor units) added to the account's wallet for this UTC month; answers the month. */
    async grantCredits(by: AdminCaller, userId: string, amountMinor: number, note: string | null): Promise<{ period: string }> {
      await assertAdmin(by);
      checkMinor(amountMinor, 1, "The amount");
      await target(userId);
      const granted = await billing.grantCredits(userId, amountMinor, note?.trim().slice(0, 500) || null);
      record(by, userId, AUDIT_ACTIONS.creditsGranted, { amount: amountMinor, period: granted.period });
      return granted;
    },

    /** On-demand billing on with a monthly cap (minor units), or off with null. */
    async setSpendCap(by: AdminCaller, userId: string, capMinor: number | null): Promise<void> {
      await assertAdmin(by);
      if (capMinor !== null) checkMinor(capMinor, 0, "The spend cap");
      await target(userId);
      await billing.setSpendCap(userId, capMinor);
      record(by, userId, AUDIT_ACTIONS.spendCapSet, { cap: capMinor });
    },

    /**
     * The firm's use per account and month, from `from` to `to` (YYYY-MM, inclusive; by default
     * the last three months), at most MAX_USAGE_MONTHS months.
     */
    async usage(by: AdminCaller, range: { from?: string; to?: string } = {}): Promise<{ from: string; to: string; rows: MonthlyUse[] }> {
      await assertAdmin(by);
      const to = range.to ?? periodOf(clock.now());
      const from = range.from ?? shiftPeriod(to, -2);
      for (const period of [from, to]) {
        if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(period)) throw new AdminRefusal("bad_period", `A month is written YYYY-MM (got ${period.slice(0, 20)}).`);
      }
      if (from > to) throw new AdminRefusal("bad_period", "The first month comes after the last.");
      if (shiftPeriod(from, MAX_USAGE_MONTHS - 1) < to) throw new AdminRefusal("bad_period", `At most ${MAX_USAGE_MONTHS} months at once.`);
      return { from, to, rows: await monthlyUse(conn, from, to, MAX_USAGE_ROWS) };
    },

    /** Every account's audit trail (or one account's), newest first, filtered as the Activity page filters. */
    async audit(by: AdminCaller, filter: AuditFilter, page: { limit: number; after?: [number, number] }): Promise<AuditPage> {
      await assertAdmin(by);
      return listAuditEntries(conn, filter, { limit: Math.min(Math.max(1, page.limit), 200), after: page.after });
    },

    /** Models, disk space, the queue, the nodes and workers, disabled webhook endpoints. */
    async status(by: AdminCaller): Promise<ServiceStatus> {
      await assertAdmin(by);
      const s = deps.status;
      if (!s) throw new Error("adminApp: no status sources were given");
      const now = clock.now();
      const disk = (path: "data" | "storage", dir: string) => {
        const space = diskSpace(dir);
        return { path, ...space, floorBytes: floorBytes(space.totalBytes, s.minFreeDisk) };
      };
      const running = new Map((await jobsPerNode(conn, now)).map((n) => [n.node, n.n]));
      return {
        // A model configured by an absolute path is named by its file: no server path in a page.
        models: (await configuredModels(s.modelsDir, s.models)).map((m) => (isAbsolute(m.name) ? { ...m, name: basename(m.name) } : m)),
        disks: s.storageDir === s.dataDir ? [disk("data", s.dataDir)] : [disk("data", s.dataDir), disk("storage", s.storageDir)],
        queue: (await jobsInFlight(conn)).map((r) => ({ ...r, n: Number(r.n) })),
        nodes: (await liveNodes(conn, ["api", "worker", "all"], now)).map((n) => ({ id: n.id, role: n.role, hostname: n.hostname, heartbeatAt: n.heartbeatAt, runningJobs: running.get(n.id) ?? 0 })),
        workers: s.workers?.() ?? null,
        disabledWebhooks: await disabledWebhookEndpoints(conn),
      };
    },
  };
}

/** The month `months` after (or before, negative) a YYYY-MM month. */
function shiftPeriod(period: string, months: number): string {
  const [year, month] = period.split("-").map(Number) as [number, number];
  return periodOf(Date.UTC(year, month - 1 + months, 1));
}

/** True when an error is one the caller should see as a refusal (a sentence), not a failure. */
export function isAdminRefusal(error: unknown): error is AdminRefusal | LastAdmin {
  return error instanceof AdminRefusal || error instanceof LastAdmin;
}
