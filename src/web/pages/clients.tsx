import { MAX_CLIENT_NAME, type renderClient } from "../../clients/app.ts";
import { fieldAttrs, type FormState } from "../form-state.ts";
import type { MessageKey } from "../i18n.ts";
import { CsrfField, Layout, Notice, PostButton, type PageFrame, type PageNotice } from "../layout.tsx";
import { FieldError } from "./fields.tsx";
import { MeetingsTable, type ListExtras, type MeetingListEntry } from "./meetings.tsx";

type RenderedClient = ReturnType<typeof renderClient>;

/** A client's two-state button (archived, held): the form that turns the flag on while it is off, and off while it is on. */
function FlagButton(props: { frame: PageFrame; client: RenderedClient; on: boolean; paths: [string, string]; labels: [MessageKey, MessageKey]; named: [MessageKey, MessageKey]; fromPage?: boolean }) {
  const { frame, client } = props;
  const state = props.on ? 1 : 0;
  if (props.fromPage) {
    // On the folder's own page: the answer comes back to it.
    return (
      <form method="post" action={`/clients/${client.id}/${props.paths[state]}`}>
        <CsrfField frame={frame} />
        <input type="hidden" name="from" value="page" />
        <button type="submit" class="secondary">
          {frame.t(props.labels[state])}
        </button>
      </form>
    );
  }
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
/** A client folder's name field (a new folder's, or a rename), the refused name kept with its reason. */
function NameForm(props: { frame: PageFrame; action: string; label: MessageKey; button: MessageKey; value: string; form: FormState | null | undefined }) {
  const { frame, form } = props;
  return (
    <form class="inline-form" method="post" action={props.action}>
      <CsrfField frame={frame} />
      <label>
        {frame.t(props.label)}
        <input name="name" required maxLength={MAX_CLIENT_NAME} value={form?.values.name ?? props.value} {...fieldAttrs("name", form)} />
      </label>
      <button type="submit">{frame.t(props.button)}</button>
      <FieldError name="name" state={form} t={frame.t} />
    </form>
  );
}

export function ClientsPage(props: { frame: PageFrame; clients: RenderedClient[]; notice?: PageNotice; form?: FormState | null }) {
  const { frame } = props;
  const { t } = frame;
  return (
    <Layout frame={frame}>
      <h1>{t("clients.title")}</h1>
      <Notice notice={props.notice} />
      <p class="muted">{t("clients.intro")}</p>
      <section aria-labelledby="new-client">
        <h2 id="new-client">{t("client.new")}</h2>
        <NameForm frame={frame} action="/clients" label="client.newName" button="client.create" value="" form={props.form} />
      </section>
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
                  <a href={`/clients/${client.id}`}>{client.name}</a>
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

/** One client folder: its name (renamed here), its archive and hold buttons, and its meetings. */
export function ClientPage(props: { frame: PageFrame; client: RenderedClient; meetings: { data: MeetingListEntry[]; has_more: boolean } & ListExtras; notice?: PageNotice; form?: FormState | null }) {
  const { frame, client, meetings } = props;
  const { t } = frame;
  const inList = `/meetings?${new URLSearchParams({ client: client.id })}`;
  return (
    <Layout frame={frame}>
      <p>
        <a href="/clients">{t("client.back")}</a>
      </p>
      <h1>{client.name}</h1>
      <Notice notice={props.notice} />
      {client.is_archived && <p class="muted">{t("client.archivedNote")}</p>}
      {client.legal_hold && <p class="badge">{t("clients.held")}</p>}
      <div class="client-tools">
        <NameForm frame={frame} action={`/clients/${client.id}/rename`} label="client.renameLabel" button="client.rename" value={client.name} form={props.form} />
        <FlagButton frame={frame} client={client} on={client.is_archived} paths={["archive", "unarchive"]} labels={["clients.archive", "clients.unarchive"]} named={["clients.archiveNamed", "clients.unarchiveNamed"]} fromPage />
        <FlagButton frame={frame} client={client} on={client.legal_hold} paths={["hold", "release"]} labels={["hold.place", "hold.lift"]} named={["clients.holdNamed", "clients.releaseNamed"]} fromPage />
      </div>
      <section aria-labelledby="client-meetings">
        <h2 id="client-meetings">{t("client.meetings")}</h2>
        {meetings.data.length === 0 ? (
          <p class="muted">{t("client.noMeetings")}</p>
        ) : (
          <>
            <MeetingsTable frame={frame} rows={meetings.data} extras={meetings} />
            {meetings.has_more && (
              <p>
                <a href={inList}>{t("client.allMeetings")}</a>
              </p>
            )}
          </>
        )}
      </section>
    </Layout>
  );
}
