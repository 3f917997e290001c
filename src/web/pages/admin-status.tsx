import type { ServiceStatus } from "../../admin/app.ts";
import { Layout, type PageFrame } from "../layout.tsx";
import type { MessageKey } from "../i18n.ts";
import { AdminNav } from "./admin-users.tsx";

/** The job kinds' words; a kind without (a newer one) shows its name. */
const JOB_KINDS: Record<string, MessageKey> = {
  meeting_processing: "admin.jobKind.meeting_processing",
  document_generation: "admin.jobKind.document_generation",
};

/** Models (stand-ins called out), disk space, the queue, nodes and workers, disabled webhook endpoints. */
export function AdminStatusPage(props: { frame: PageFrame; status: ServiceStatus }) {
  const { frame, status } = props;
  const { t } = frame;
  const bytes = new Intl.NumberFormat(frame.locale, { style: "unit", unit: "gigabyte", maximumFractionDigits: 1 });
  const gb = (n: number) => bytes.format(n / 1e9);
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "short", timeStyle: "medium", timeZone: "UTC" });
  return (
    <Layout frame={frame}>
      <h1>{t("admin.title")}</h1>
      <AdminNav frame={frame} current="status" />
      <section aria-labelledby="models-title">
        <h2 id="models-title">{t("admin.models")}</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">{t("admin.role")}</th>
              <th scope="col">{t("admin.model")}</th>
              <th scope="col">{t("admin.state")}</th>
            </tr>
          </thead>
          <tbody>
            {status.models.map((m) => (
              <tr data-model={m.role}>
                <td>{m.role}</td>
                <td>
                  <code>{m.name}</code>
                </td>
                <td data-state={m.state} data-stand-in={m.standIn ? "true" : undefined}>
                  {m.state}
                  {m.standIn && <strong class="error"> · {t("admin.standIn")}</strong>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="disk-title">
        <h2 id="disk-title">{t("admin.disk")}</h2>
        <dl class="facts">
          {status.disks.map((d) => (
            <>
              <dt>{d.path}</dt>
              <dd>{t("admin.free", { free: gb(d.freeBytes), total: gb(d.totalBytes), floor: gb(d.floorBytes) })}</dd>
            </>
          ))}
        </dl>
      </section>
      <section aria-labelledby="queue-title">
        <h2 id="queue-title">{t("admin.queue")}</h2>
        {status.queue.length === 0 ? (
          <p class="muted">{t("admin.noJobs")}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t("admin.kind")}</th>
                <th scope="col">{t("admin.state")}</th>
                <th scope="col">{t("admin.count")}</th>
              </tr>
            </thead>
            <tbody>
              {status.queue.map((q) => (
                <tr>
                  <td>{Object.hasOwn(JOB_KINDS, q.kind) ? t(JOB_KINDS[q.kind]!) : q.kind}</td>
                  <td>{q.status === "queued" || q.status === "processing" ? t(`status.${q.status}`) : q.status}</td>
                  <td>{q.n}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="nodes-title">
        <h2 id="nodes-title">{t("admin.nodes")}</h2>
        {status.workers && <p>{t("admin.workers", { ready: status.workers.ready, size: status.workers.size, crashed: status.workers.crashed })}</p>}
        <table>
          <thead>
            <tr>
              <th scope="col">{t("admin.node")}</th>
              <th scope="col">{t("admin.role")}</th>
              <th scope="col" class="optional">
                {t("admin.when")}
              </th>
              <th scope="col">{t("admin.runningJobs")}</th>
            </tr>
          </thead>
          <tbody>
            {status.nodes.map((n) => (
              <tr>
                <td>
                  <code>{n.id}</code> {n.hostname}
                </td>
                <td>{n.role}</td>
                <td class="optional">{date.format(new Date(n.heartbeatAt))}</td>
                <td>{n.runningJobs}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">{t("admin.webhooks")}</h2>
        {status.disabledWebhooks.length === 0 ? (
          <p class="muted">{t("admin.noDisabledWebhooks")}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t("admin.email")}</th>
                <th scope="col">{t("admin.endpoints")}</th>
              </tr>
            </thead>
            <tbody>
              {status.disabledWebhooks.map((w) => (
                <tr>
                  <td>
                    <a href={`/admin/users/${w.userId}`}>{w.email}</a>
                  </td>
                  <td>{w.endpoints}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Layout>
  );
}
