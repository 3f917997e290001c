import type { renderLedgerLineWithChannel, Usage } from "../../usage/app.ts";
import type { WebappUsage } from "../../usage/app.ts";
import type { MessageKey } from "../i18n.ts";
import { Layout, NextPageLink, type PageFrame } from "../layout.tsx";
import { SettingsNav } from "./settings.tsx";

type Line = ReturnType<typeof renderLedgerLineWithChannel>;

/** The month's usage: the API allowance and its spending, and every ledger line of both channels. */
export function UsagePage(props: { frame: PageFrame; usage: Usage; webapp: WebappUsage; lines: Line[]; nextHref: string | null }) {
  const { frame, usage } = props;
  const { t } = frame;
  const money = new Intl.NumberFormat(frame.locale, { style: "currency", currency: usage.currency });
  const amount = (minor: number | null) => (minor === null ? "—" : money.format(minor / 100));
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "short", timeStyle: "short", timeZone: "UTC" });
  const number = new Intl.NumberFormat(frame.locale);
  const quantity = (line: Line) =>
    line.operation === "transcription"
      ? t("usage.unit.minutes", { count: number.format(Math.round(line.quantities.audio_seconds / 60)) })
      : t("usage.unit.tokens", { count: number.format(line.quantities.prompt_tokens + line.quantities.completion_tokens) });
  // The ledger's operation in the person's language.
  const operation = (line: Line) => t(`usage.op.${line.operation}` as MessageKey);
  return (
    <Layout frame={frame}>
      <h1>{t("nav.settings")}</h1>
      <SettingsNav frame={frame} current="usage" />
      <section aria-labelledby="allowance-title">
        <h2 id="allowance-title">{t("usage.api", { period: usage.period })}</h2>
        <dl class="facts">
          <dt>{t("usage.allowance")}</dt>
          <dd>{amount(usage.wallet.allowance + usage.wallet.credits)}</dd>
          <dt>{t("usage.used")}</dt>
          <dd>{amount(usage.wallet.used)}</dd>
          <dt>{t("usage.remaining")}</dt>
          <dd>{amount(usage.wallet.remaining)}</dd>
          <dt>{t("usage.reserved")}</dt>
          <dd>{amount(usage.wallet.reserved)}</dd>
          <dt>{t("usage.onDemand")}</dt>
          <dd>{usage.on_demand.enabled ? `${amount(usage.on_demand.used)} / ${amount(usage.on_demand.spend_cap)}` : t("usage.off")}</dd>
        </dl>
      </section>
      <section aria-labelledby="webapp-title">
        <h2 id="webapp-title">{t("usage.webappTitle", { period: props.webapp.period })}</h2>
        <dl class="facts">
          <dt>{t("usage.webappAudio")}</dt>
          <dd>
            <meter min={0} max={props.webapp.audioMinutes.quota} value={props.webapp.audioMinutes.used} /> {props.webapp.audioMinutes.used} / {props.webapp.audioMinutes.quota} min
            {props.webapp.audioMinutes.reserved > 0 && ` · ${t("usage.inProgress", { count: props.webapp.audioMinutes.reserved })}`}
          </dd>
          <dt>{t("usage.webappDocuments")}</dt>
          <dd>
            <meter min={0} max={props.webapp.documents.quota} value={props.webapp.documents.used} /> {props.webapp.documents.used} / {props.webapp.documents.quota}
            {props.webapp.documents.reserved > 0 && ` · ${t("usage.inProgress", { count: props.webapp.documents.reserved })}`}
          </dd>
        </dl>
        <p class="muted">{t("usage.webappNote")}</p>
      </section>
      <section aria-labelledby="ledger-title">
        <h2 id="ledger-title">{t("usage.ledger")}</h2>
        {props.lines.length === 0 ? (
          <p class="muted">{t("usage.none")}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t("hooks.when")}</th>
                <th scope="col">{t("usage.operation")}</th>
                <th scope="col">{t("usage.channel")}</th>
                <th scope="col" class="optional">
                  {t("usage.quantity")}
                </th>
                <th scope="col">{t("usage.cost")}</th>
              </tr>
            </thead>
            <tbody>
              {props.lines.map((line) => (
                <tr>
                  <td>{date.format(new Date(line.created_at))}</td>
                  <td>{line.meeting_id ? <a href={`/meetings/${line.meeting_id}`}>{operation(line)}</a> : operation(line)}</td>
                  <td>{line.channel === "api" ? "API" : t("usage.webapp")}</td>
                  <td class="optional">{quantity(line)}</td>
                  <td>{amount(line.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <NextPageLink frame={frame} href={props.nextHref} />
      </section>
    </Layout>
  );
}
