// The part of oidc-provider's API the single sign-on tests use (the package ships no types).
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Account {
    accountId: string;
    /** `use` is "id_token" or "userinfo": which answer the claims are for. */
    claims(use: string, scope: string): Promise<Record<string, unknown>>;
  }

  interface Configuration {
    clients?: { client_id: string; client_secret?: string; redirect_uris: string[] }[];
    /** Scope name → the claims it releases (null for a claim of its own). */
    claims?: Record<string, string[] | null>;
    findAccount?(ctx: unknown, accountId: string): Promise<Account | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
