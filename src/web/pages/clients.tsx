import type { renderClient } from "../../clients/app.ts";
import { Layout, Notice, PostButton, type PageFrame, type PageNotice } from "../layout.tsx";

/** The account's client folders, archived ones too, each with its archive or unarchive button. */
export function ClientsPage(props: { frame: PageFrame; clients: ReturnType<typeof renderClient>[]; notice?: PageNotice }) {
  const { frame } = props;
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("clients.title")}</h1>
      <Notice notice={props.notice} />
      <p class="muted">{t("clients.intro")}</p>
      {props.clients.length === 0 ? (
        <p class="muted">{t("clients.none")}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("clients.name")}</th>
              <th scope="col">{t("clients.state")}</th>
              <th scope="col">{t("clients.hold")}</th>
              <th scope="col">
                <span class="visually-hidden">{t("clients.archive")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.clients.map((client) => (
              <tr>
                <td>
                  <a href={`/meetings?${new URLSearchParams({ client: client.id })}`}>{client.name}</a>
                </td>
                <td>{client.is_archived ? t("clients.archived") : t("clients.active")}</td>
                <td>
                  {client.legal_hold ? t("clients.held") : t("clients.notHeld")}{" "}
                  <PostButton
                    frame={frame}
                    action={`/clients/${client.id}/${client.legal_hold ? "release" : "hold"}`}
                    label={client.legal_hold ? t("hold.lift") : t("hold.place")}
                    kind="secondary"
                    ariaLabel={t(client.legal_hold ? "clients.releaseNamed" : "clients.holdNamed", { name: client.name })}
                  />
                </td>
                <td>
                  <PostButton
                    frame={frame}
                    action={`/clients/${client.id}/${client.is_archived ? "unarchive" : "archive"}`}
                    label={client.is_archived ? t("clients.unarchive") : t("clients.archive")}
                    kind="secondary"
                    ariaLabel={t(client.is_archived ? "clients.unarchiveNamed" : "clients.archiveNamed", { name: client.name })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}
