import { apiKeyHint, SCOPES, type ApiKeyRow } from "../../auth/app.ts";
import { CsrfField, Layout, Notice, ShownOnce, type PageFrame } from "../layout.tsx";
import { fieldAttrs } from "../form-state.ts";
import { ConfirmButton } from "./confirm.tsx";
import { FieldError } from "./fields.tsx";
import { SettingsNav } from "./settings.tsx";

export function DevelopersPage(props: {
  frame: PageFrame;
  keys: ApiKeyRow[];
  /** The key just created, shown this once. */
  createdKey?: { name: string; key: string };
  notice?: { text: string; error?: boolean };
  /** Active keys the account may hold (--max-api-keys). */
  maxKeys: number;
}) {
  const { frame } = props;
  const { t } = frame;
  const date = new Intl.DateTimeFormat(frame.locale, { dateStyle: "medium", timeZone: "UTC" });
  const active = props.keys.filter((key) => key.revokedAt === null);
  // A refused key form (form-state.ts): its name and scopes, and the messages at them.
  const state = frame.formState;
  const chosen = (state?.values.scopes ?? "").split(" ");
  return (
    <Layout frame={frame}>
      <h1>{t("nav.settings")}</h1>
      <SettingsNav frame={frame} current="developers" />
      <Notice notice={props.notice} />
      {props.createdKey && (
        <ShownOnce frame={frame} heading={t("keys.created", { name: props.createdKey.name })} explanation={t("keys.shownOnce")} label={t("keys.key")} value={props.createdKey.key} />
      )}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">{t("keys.title")}</h2>
        {active.length === 0 ? (
          <p class="muted">{t("keys.none")}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t("keys.name")}</th>
                <th scope="col">{t("keys.key")}</th>
                <th scope="col" class="optional">
                  {t("keys.scopes")}
                </th>
                <th scope="col" class="optional">
                  {t("keys.lastUsed")}
                </th>
                <th scope="col">
                  <span class="visually-hidden">{t("keys.revoke")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {active.map((key) => (
                <tr>
                  <td>{key.name}</td>
                  <td>
                    <code>{apiKeyHint(key)}</code>
                  </td>
                  <td class="optional">{key.scopes.join(", ")}</td>
                  <td class="optional">{key.lastUsedAt !== null ? date.format(new Date(key.lastUsedAt)) : t("keys.never")}</td>
                  <td>
                    <ConfirmButton
                      frame={frame}
                      action={`/settings/developers/keys/${key.id}/revoke`}
                      label={t("keys.revoke")}
                      kind="danger"
                      ariaLabel={t("keys.revokeNamed", { name: key.name })}
                      understood={t("err.confirm.revokeKey")}
                      question={t("err.confirm.revokeKeyAsk", { name: key.name })}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="new-key-title">
        <h2 id="new-key-title">{t("keys.new")}</h2>
        <p class="muted">{t("keys.bound", { active: active.length, max: props.maxKeys })}</p>
        <form class="stack" method="post" action="/settings/developers/keys">
          <CsrfField frame={frame} />
          <label>
            {t("keys.name")}
            <input name="name" required maxLength={100} value={state?.values.name} {...fieldAttrs("name", state)} />
          </label>
          <FieldError name="name" state={state} t={t} />
          <fieldset {...fieldAttrs("scope", state)}>
            <legend>{t("keys.scopes")}</legend>
            {SCOPES.map((scope) => (
              <label class="inline">
                <input type="checkbox" name="scope" value={scope} checked={state ? chosen.includes(scope) : scope.startsWith("read:")} /> <code>{scope}</code>
              </label>
            ))}
            <FieldError name="scope" state={state} t={t} />
          </fieldset>
          <button type="submit">{t("keys.create")}</button>
        </form>
      </section>
    </Layout>
  );
}
