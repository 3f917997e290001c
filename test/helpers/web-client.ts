// A browser's cookie jar over plain fetch, for web app tests that check responses at the HTTP
// level (status codes, headers, cookies); test/web/browser.test.ts drives a real chromium.

/** What a browser keeps between requests to one server: its cookies. */
export class CookieClient {
  cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  async get(path: string, headers: Record<string, string> = {}) {
    return this.keep(await fetch(this.baseUrl + path, { redirect: "manual", headers: { cookie: this.header(), ...headers } }));
  }

  /** A form post from this site's page (its Origin), unless the headers say otherwise. */
  async post(path: string, fields: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}) {
    return this.keep(
      await fetch(this.baseUrl + path, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: this.header(), "content-type": "application/x-www-form-urlencoded", origin: this.baseUrl, ...headers },
        body: new URLSearchParams(fields).toString(),
      }),
    );
  }

  /** The page a redirect leads to (post/redirect/get: a refused form's page, with its message), read with this browser's cookies. */
  async follow(response: Response, headers: Record<string, string> = {}) {
    return this.get(response.headers.get("location")!, headers);
  }

  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  keep(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const cookie = Bun.Cookie.parse(line);
      if (cookie.value === "" || cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return response;
  }

  /** The _csrf field of the page at `path` (the sign-in form's, or a signed-in page's). */
  async csrfToken(path = "/login"): Promise<string> {
    const page = await (await this.get(path)).text();
    return /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  }

  async signIn(email: string, password: string) {
    return this.post("/login", { _csrf: await this.csrfToken("/login"), email, password });
  }
}
