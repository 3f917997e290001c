import type { ManagedUser } from "../../admin/app.ts";
import { CsrfField, Layout, Notice, PostButton, ShownOnce, type PageFrame, type PageNotice } from "../layout.tsx";
import { fieldAttrs } from "../form-state.ts";
import { FieldError } from "./fields.tsx";

const PLANS = ["free", "standard", "pro"] as const;

const TABS = [
  ["users", "/admin/users", "admin.users"],
  ["usage", "/admin/usage", "admin.usage"],
  ["audit", "/admin/audit", "admin.audit"],
  ["status", "/admin/status", "admin.status"],
] as const;

/** The console's tabs. */
export function AdminNav({ frame, current }: { frame: PageFrame; current: (typeof TABS)[number][0] }) {
  const { t } = frame;
  return (
    <nav class="tabs" aria-label={t("admin.title")}>
      {TABS.map(([id, href, label]) => (
        <a href={href} aria-current={current === id ? "page" : undefined}>
          {t(label)}
        </a>
      ))}
    </nav>
  );
}

/** A sign-in link just made (a new user, a reset sign-in): shown this once, never again. */
export interface ShownLink {
  email: string;
  url: string;
}

function LinkShownOnce({ frame, link }: { frame: PageFrame; link: ShownLink }) {
  const { t } = frame;
  return <ShownOnce frame={frame} heading={t("admin.linkFor", { email: link.email })} explanation={t("admin.linkShownOnce")} label={t("admin.link")} value={link.url} />;
}

/** Users: who they are, their plan and role, last sign-in, state; a form to create one. */
export function AdminUsersPage(props: { frame: PageFrame; users: ManagedUser[]; notice?: PageNotice; link?: ShownLink }) {
  const { frame } = props;
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "medium", timeZone: "UTC" });
  const when = (ms: number | null) => (ms === null ? t("admin.never") : date.format(new Date(ms)));
  // A refused new-user form (form-state.ts): as it was filled in, the message at the email.
  const state = frame.formState;
  return (
    <Layout frame={frame}>
      <h1>{t("admin.title")}</h1>
      <AdminNav frame={frame} current="users" />
      <Notice notice={props.notice} />
      {props.link && <LinkShownOnce frame={frame} link={props.link} />}
      <section aria-labelledby="users-title">
        <h2 id="users-title">{t("admin.users")}</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">{t("admin.email")}</th>
              <th scope="col" class="optional">
                {t("admin.name")}
              </th>
              <th scope="col">{t("admin.plan")}</th>
              <th scope="col">{t("admin.role")}</th>
              <th scope="col" class="optional">
                {t("admin.created")}
              </th>
              <th scope="col" class="optional">
                {t("admin.lastSignIn")}
              </th>
              <th scope="col">{t("admin.state")}</th>
            </tr>
          </thead>
          <tbody>
            {props.users.map((u) => (
              <tr data-user={u.id}>
                <td>
                  <a href={`/admin/users/${u.id}`} aria-label={t("admin.manage", { email: u.email })}>
                    {u.email}
                  </a>
                </td>
                <td class="optional">{u.name ?? ""}</td>
                <td>{u.plan}</td>
                <td>{u.role === "admin" ? t("admin.roleAdmin") : t("admin.roleUser")}</td>
                <td class="optional">{when(u.createdAt)}</td>
                <td class="optional">{when(u.lastSignInAt)}</td>
                <td>{u.disabledAt === null ? t("admin.active") : t("admin.disabled")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="new-user-title">
        <h2 id="new-user-title">{t("admin.newUser")}</h2>
        <form class="stack" method="post" action="/admin/users">
          <CsrfField frame={frame} />
          <label>
            {t("admin.email")}
            <input name="email" type="email" required maxLength={320} value={state?.values.email} {...fieldAttrs("email", state)} />
          </label>
          <FieldError name="email" state={state} t={t} />
          <label>
            {t("admin.name")}
            <input name="name" maxLength={200} value={state?.values.name} />
          </label>
          <PlanSelect frame={frame} selected={state?.values.plan ?? "free"} />
          <label>
            {t("admin.role")}
            <select name="role">
              <option value="user">{t("admin.roleUser")}</option>
              <option value="admin" selected={state?.values.role === "admin"}>
                {t("admin.roleAdmin")}
              </option>
            </select>
          </label>
          <button type="submit">{t("admin.create")}</button>
        </form>
      </section>
    </Layout>
  );
}

function PlanSelect({ frame, selected }: { frame: PageFrame; selected: string }) {
  return (
    <label>
      {frame.t("admin.plan")}
      <select name="plan">
        {PLANS.map((plan) => (
          <option value={plan} selected={plan === selected}>
            {plan}
          </option>
        ))}
      </select>
    </label>
  );
}

/** One user: every action the console takes on an account, each its own form. */
export function AdminUserPage(props: { frame: PageFrame; user: ManagedUser; notice?: PageNotice; link?: ShownLink }) {
  const { frame, user } = props;
  const { t } = frame;
  const base = `/admin/users/${user.id}`;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  return (
    <Layout frame={frame}>
      <h1>{user.email}</h1>
      <AdminNav frame={frame} current="users" />
      <p>
        <a href="/admin/users">{t("admin.back")}</a>
      </p>
      <Notice notice={props.notice} />
      {props.link && <LinkShownOnce frame={frame} link={props.link} />}
      <dl class="facts">
        <dt>{t("admin.name")}</dt>
        <dd>{user.name ?? "—"}</dd>
        <dt>{t("admin.plan")}</dt>
        <dd data-field="plan">{user.plan}</dd>
        <dt>{t("admin.role")}</dt>
        <dd data-field="role">{user.role === "admin" ? t("admin.roleAdmin") : t("admin.roleUser")}</dd>
        <dt>{t("admin.state")}</dt>
        <dd data-field="state">{user.disabledAt === null ? t("admin.active") : t("admin.disabled")}</dd>
        <dt>{t("admin.lastSignIn")}</dt>
        <dd>{user.lastSignInAt === null ? t("admin.never") : date.format(new Date(user.lastSignInAt))}</dd>
      </dl>
      <section aria-labelledby="access-title">
        <h2 id="access-title">{t("admin.state")}</h2>
        <p class="muted">{t("admin.disableHelp")}</p>
        {user.disabledAt === null ? (
          <PostButton frame={frame} action={`${base}/disable`} label={t("admin.disable")} kind="danger" />
        ) : (
          <PostButton frame={frame} action={`${base}/enable`} label={t("admin.enable")} />
        )}
        <p class="muted">{t("admin.resetHelp")}</p>
        <PostButton frame={frame} action={`${base}/reset-sign-in`} label={t("admin.resetSignIn")} kind="secondary" />
        <form method="post" action={`${base}/role`}>
          <CsrfField frame={frame} />
          <input type="hidden" name="role" value={user.role === "admin" ? "user" : "admin"} />
          <button type="submit" class="secondary">
            {user.role === "admin" ? t("admin.makeUser") : t("admin.makeAdmin")}
          </button>
        </form>
      </section>
      <section aria-labelledby="plan-title">
        <h2 id="plan-title">{t("admin.changePlan")}</h2>
        <form class="stack" method="post" action={`${base}/plan`}>
          <CsrfField frame={frame} />
          <PlanSelect frame={frame} selected={user.plan} />
          <button type="submit">{t("admin.save")}</button>
        </form>
      </section>
      <section aria-labelledby="credits-title">
        <h2 id="credits-title">{t("admin.grantCredits")}</h2>
        <form class="stack" method="post" action={`${base}/credits`}>
          <CsrfField frame={frame} />
          <label>
            {t("admin.amount")}
            <input name="amount" type="number" min={1} step={1} required />
          </label>
          <label>
            {t("admin.note")}
            <input name="note" maxLength={500} />
          </label>
          <button type="submit">{t("admin.grantCredits")}</button>
        </form>
      </section>
      <section aria-labelledby="cap-title">
        <h2 id="cap-title">{t("admin.spendCap")}</h2>
        <form class="stack" method="post" action={`${base}/cap`}>
          <CsrfField frame={frame} />
          <label>
            {t("admin.spendCap")}
            <input name="cap" type="number" min={0} step={1} />
          </label>
          <p class="muted">{t("admin.capHelp")}</p>
          <button type="submit">{t("admin.save")}</button>
        </form>
      </section>
    </Layout>
  );
}
