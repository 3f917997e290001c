import type { AuditedActor } from "../audit/types.ts";
import type { Channel } from "../lib/channel.ts";
import type { Credential, Principal } from "./authenticate.ts";
import type { Plan } from "./plans.ts";
import type { WebSession } from "./web-sessions.ts";

/** The account a use case acts for: whose rows it may see and change, and which plan bounds it. */
export interface Account {
  userId: string;
  plan: Plan;
}

/** A signed-in browser: the web app's credential. */
export interface WebSessionCredential {
  type: "web_session";
  id: string;
}

/**
 * Who is acting, as every application use case takes it: the account, the channel it came
 * through (metering, listing), and the credential it presented (an API key, an OAuth token, or
 * the web app's session), for scopes and the audit of who did what.
 */
export interface Actor extends AuditedActor {
  account: Account;
  channel: Channel;
  credential: Credential | WebSessionCredential;
  /**
   * Where the request came from: the client's address, through the trusted proxy (http/client-address.ts),
   * looked up only when asked (the audit trail). Absent outside a request (tests, the CLI).
   */
  clientAddress?: () => string | null;
}

/** Who acts in an API request: the authenticated principal's account and credential. */
export function apiActor(principal: Principal): Actor {
  return { account: { userId: principal.user.id, plan: principal.user.plan }, channel: "api", credential: principal.credential, clientAddress: principal.clientAddress };
}

/** Who acts in a web app request: the signed-in user, through their session. */
export function webActor(session: WebSession): Actor {
  return {
    account: { userId: session.user.id, plan: session.user.plan },
    channel: "webapp",
    credential: { type: "web_session", id: session.tokenHash },
    clientAddress: session.clientAddress,
  };
}
