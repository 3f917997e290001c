import { createTransport } from "nodemailer";
import { getUserById } from "../auth/user-store.ts";
import type { Conn } from "../db/conn.ts";

interface DisabledEndpoint {
  id: string;
  userId: string;
  url: string;
}

/**
 * Tells an endpoint's owner it was disabled: an email through the firm's SMTP relay (--smtp-url,
 * nodemailer) when one is configured, else a warning line for the operator. The mail names the
 * endpoint and how to re-enable it; it carries no event content.
 */
export function disabledEndpointNotifier(deps: { conn: Conn; smtpUrl: string | null; from: string; warn(line: string): void }) {
  const transport = deps.smtpUrl ? createTransport(deps.smtpUrl) : null;
  return async (endpoint: DisabledEndpoint): Promise<void> => {
    const owner = await getUserById(deps.conn, endpoint.userId);
    if (!transport || !owner) {
      deps.warn(`webhook endpoint ${endpoint.id} was disabled after repeated failures; no SMTP relay is configured (--smtp-url) to tell its owner`);
      return;
    }
    await transport.sendMail({
      from: deps.from,
      to: owner.email,
      subject: "Verbatim: a webhook endpoint was disabled",
      text: [
        `Your webhook endpoint ${endpoint.id} (${endpoint.url}) failed 15 deliveries in a row and was disabled.`,
        "Events are no longer sent to it. Once the receiver works again, re-enable it with",
        `PATCH /api/v1/webhook_endpoints/${endpoint.id} {"enabled": true}; deliveries still due are then sent.`,
      ].join("\n"),
    });
  };
}
