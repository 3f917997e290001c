// panva's oidc-provider (a certified OpenID Connect implementation) on loopback over http, in its
// default configuration, for the single sign-on tests: what is configured is only what any
// deployment must give it (the account lookup, the client with its callback URL) and the standard
// `email` scope's claims (its default claims list holds `sub` alone, so no email would ever leave
// it). In the code flow it keeps `email` and `email_verified` out of the ID token and serves them
// from its UserInfo endpoint (OpenID Connect Core 5.4), and it walks the browser through its own
// sign-in and consent pages (its development interactions: any password is taken).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { CookieClient } from "./web-client.ts";

export interface ProviderPerson {
  email: string;
  emailVerified: boolean;
}

export class LoopbackOidcProvider {
  /** Whose claims the UserInfo endpoint served, by account id. */
  readonly userInfoServed: string[] = [];

  private constructor(
    private readonly http: ReturnType<typeof createServer>,
    readonly issuer: string,
  ) {}

  /** Listens first, so that the issuer is known before the client's callback URL is. */
  static async listen(): Promise<LoopbackOidcProvider> {
    const http = createServer();
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    return new LoopbackOidcProvider(http, `http://127.0.0.1:${(http.address() as AddressInfo).port}`);
  }

  /** Starts answering, with one registered client and these people (account id → person). */
  serve(client: { clientId: string; clientSecret: string; redirectUri: string }, people: Record<string, ProviderPerson>): void {
    const provider = new Provider(this.issuer, {
      clients: [{ client_id: client.clientId, client_secret: client.clientSecret, redirect_uris: [client.redirectUri] }],
      claims: { email: ["email", "email_verified"] },
      findAccount: async (_ctx, accountId) => {
        const person = people[accountId];
        if (!person) return undefined;
        return {
          accountId,
          claims: async (use) => {
            if (use === "userinfo") this.userInfoServed.push(accountId);
            return { sub: accountId, email: person.email, email_verified: person.emailVerified };
          },
        };
      },
    });
    this.http.on("request", provider.callback());
  }

  /**
   * A browser's walk from the authorization URL through the provider's sign-in page (as
   * `accountId`) and its consent page, up to its redirect back: the URL it sends the browser to.
   */
  async signIn(authorizationUrl: string, accountId: string): Promise<URL> {
    const browser = new CookieClient(this.issuer);
    let location = authorizationUrl;
    for (let hop = 0; hop < 12; hop++) {
      const url = new URL(location, this.issuer);
      if (url.origin !== this.issuer) return url;
      const page = await browser.get(url.pathname + url.search);
      if (page.status === 302 || page.status === 303) {
        location = page.headers.get("location")!;
        continue;
      }
      if (page.status !== 200) throw new Error(`the provider answered ${page.status}: ${(await page.text()).slice(0, 500)}`);
      // An interaction page: its form posts the prompt it shows (login, then consent).
      const html = await page.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)![1]!;
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)![1]!;
      const fields: Record<string, string> = prompt === "login" ? { prompt, login: accountId, password: "any" } : { prompt };
      const submitted = await browser.post(new URL(action, this.issuer).pathname, fields, { origin: this.issuer });
      if (submitted.status !== 302 && submitted.status !== 303) throw new Error(`the provider's ${prompt} form answered ${submitted.status}`);
      location = submitted.headers.get("location")!;
    }
    throw new Error("the provider never sent the browser back");
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise((resolve) => this.http.close(resolve));
  }
}
