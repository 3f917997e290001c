import { EVENT_TYPES, type RenderedDelivery, type RenderedEndpoint } from "../../webhooks/app.ts";
import { CsrfField, Layout, NextPageLink, Notice, PostButton, ShownOnce, type PageFrame, type PageNotice } from "../layout.tsx";
import { SettingsNav } from "./settings.tsx";
import { fieldAttrs } from "../form-state.ts";
import { ConfirmButton } from "./confirm.tsx";
import { FieldError } from "./fields.tsx";

type Endpoint = RenderedEndpoint;
type Delivery = RenderedDelivery;

function Csrf({ frame }: { frame: PageFrame }) {
  return <CsrfField frame={frame} />;
}

export function WebhooksPage(props: { frame: PageFrame; endpoints: Endpoint[]; secret?: { endpointUrl: string; value: string }; notice?: PageNotice }) {
  const { frame } = props;
  const { t } = frame;
  // A refused endpoint form (form-state.ts): its URL, description and events, and the messages at them.
  const state = frame.formState;
  const events = (state?.values.events ?? "").split(" ");
  return (
    <Layout frame={frame}>
      <h1>{t("nav.settings")}</h1>
      <SettingsNav frame={frame} current="webhooks" />
      <Notice notice={props.notice} />
      {props.secret && (
        <ShownOnce frame={frame} heading={t("hooks.secretFor", { url: props.secret.endpointUrl })} explanation={t("hooks.secretOnce")} label={t("hooks.secret")} value={props.secret.value} />
      )}
      <section aria-labelledby="hooks-title">
        <h2 id="hooks-title">{t("hooks.title")}</h2>
        {props.endpoints.length === 0 && <p class="muted">{t("hooks.none")}</p>}
        {props.endpoints.map((endpoint) => (
          <article class="endpoint">
            <h3>
              <code>{endpoint.url}</code>
            </h3>
            <p>
              <span class={`badge ${endpoint.enabled ? "completed" : "failed"}`}>{endpoint.enabled ? t("hooks.enabled") : t("hooks.disabled")}</span>{" "}
              {endpoint.events.join(", ")} · {t("hooks.secret")} <code>{endpoint.secret_hint}</code>
              {endpoint.consecutive_failures > 0 && ` · ${t("hooks.failures", { count: endpoint.consecutive_failures })}`}
            </p>
            {endpoint.description && <p class="muted">{endpoint.description}</p>}
            <div class="actions">
              <a href={`/settings/webhooks/${endpoint.id}`}>{t("hooks.deliveries")}</a>
              <PostButton frame={frame} action={`/settings/webhooks/${endpoint.id}/test`} label={t("hooks.test")} kind="secondary" />
              <ConfirmButton
                frame={frame}
                action={`/settings/webhooks/${endpoint.id}/rotate`}
                label={t("hooks.rotate")}
                kind="secondary"
                understood={t("err.confirm.rotate")}
                question={t("err.confirm.rotateAsk", { url: endpoint.url })}
              />
              {!endpoint.enabled && (
                <PostButton frame={frame} action={`/settings/webhooks/${endpoint.id}/enable`} label={t("hooks.enable")} kind="secondary" />
              )}
              <ConfirmButton
                frame={frame}
                action={`/settings/webhooks/${endpoint.id}/delete`}
                label={t("hooks.delete")}
                kind="danger"
                ariaLabel={t("hooks.deleteNamed", { url: endpoint.url })}
                understood={t("err.confirm.deleteHook")}
                question={t("err.confirm.deleteHookAsk", { url: endpoint.url })}
              />
            </div>
          </article>
        ))}
      </section>
      <section aria-labelledby="new-hook-title">
        <h2 id="new-hook-title">{t("hooks.new")}</h2>
        <form class="stack wide" method="post" action="/settings/webhooks">
          <CsrfField frame={frame} />
          <label>
            {t("hooks.url")}
            <input name="url" type="url" required maxLength={2048} placeholder="https://" value={state?.values.url} {...fieldAttrs("url", state)} />
          </label>
          <FieldError name="url" state={state} t={t} />
          <label>
            {t("hooks.description")}
            <input name="description" maxLength={500} value={state?.values.description} {...fieldAttrs("description", state)} />
          </label>
          <FieldError name="description" state={state} t={t} />
          <fieldset {...fieldAttrs("events", state)}>
            <legend>{t("hooks.events")}</legend>
            <label class="inline">
              <input type="checkbox" name="event" value="*" checked={state ? events.includes("*") : true} /> {t("hooks.allEvents")}
            </label>
            {EVENT_TYPES.filter((type) => type !== "ping").map((type) => (
              <label class="inline">
                <input type="checkbox" name="event" value={type} checked={events.includes(type)} /> <code>{type}</code>
              </label>
            ))}
            <FieldError name="events" state={state} t={t} />
          </fieldset>
          <button type="submit">{t("hooks.add")}</button>
        </form>
      </section>
    </Layout>
  );
}

export function DeliveriesPage(props: { frame: PageFrame; endpoint: Endpoint; deliveries: Delivery[]; nextHref: string | null }) {
  const { frame } = props;
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "short", timeStyle: "medium", timeZone: "UTC" });
  return (
    <Layout frame={frame}>
      <h1>{t("hooks.deliveriesOf", { url: props.endpoint.url })}</h1>
      <SettingsNav frame={frame} current="webhooks" />
      {props.deliveries.length === 0 ? (
        <p class="muted">{t("hooks.noDeliveries")}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t("hooks.when")}</th>
              <th scope="col">{t("hooks.event")}</th>
              <th scope="col">{t("meetings.status")}</th>
              <th scope="col" class="optional">
                {t("hooks.attempts")}
              </th>
              <th scope="col" class="optional">
                {t("hooks.response")}
              </th>
            </tr>
          </thead>
          <tbody>
            {props.deliveries.map((delivery) => (
              <tr>
                <td>{date.format(new Date(delivery.created_at))}</td>
                <td>
                  <code>{delivery.event_type}</code>
                </td>
                <td>{t(`hooks.status.${delivery.status}`)}</td>
                <td class="optional">{delivery.attempts}</td>
                <td class="optional">{delivery.response_status ?? delivery.error ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NextPageLink frame={frame} href={props.nextHref} />
      <p>
        <a href="/settings/webhooks">{t("hooks.back")}</a>
      </p>
    </Layout>
  );
}
