import type { renderClient } from "../../clients/app.ts";
import type { MessageKey } from "../i18n.ts";
import { Layout, Notice, PostButton, type PageFrame, type PageNotice } from "../layout.tsx";

type RenderedClient = ReturnType<typeof renderClient>;

/** A client's two-state button (archived, held): the form that turns the flag on while it is off, and off while it is on. */
function FlagButton(props: { frame: PageFrame; client: RenderedClient; on: boolean; paths: [string, string]; labels: [MessageKey, MessageKey]; named: [MessageKey, MessageKey] }) {
  const { frame, client } = props;
  const state = props.on ? 1 : 0;
  return (
    <PostButton
      frame={frame}
      action={`/clients/${client.id}/${props.paths[state]}`}
      label={frame.t(props.labels[state])}
      kind="secondary"
      ariaLabel={frame.t(props.named[state], { name: client.name })}
    />
  );
}

/** The account's client folders, archived ones too, each with its archive or unarchive button. */
export function ClientsPage(props: { frame: PageFrame; clients: RenderedClient[]; notice?: PageNotice }) {
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
                  <FlagButton frame={frame} client={client} on={client.legal_hold} paths={["hold", "release"]} labels={["hold.place", "hold.lift"]} named={["clients.holdNamed", "clients.releaseNamed"]} />
                </td>
                <td>
                  <FlagButton
                    frame={frame}
                    client={client}
                    on={client.is_archived}
                    paths={["archive", "unarchive"]}
                    labels={["clients.archive", "clients.unarchive"]}
                    named={["clients.archiveNamed", "clients.unarchiveNamed"]}
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
