// The sign-in's time limit, with an injected clock, against panva's oidc-provider on loopback
// (test/helpers/oidc-provider.ts): a sign-in whose provider answer comes back more than 10
// minutes after its start is refused, one that comes back just within them signs in.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LoopbackOidcProvider } from "../../test/helpers/oidc-provider.ts";
import { parseEgressAllow } from "../net/egress.ts";
import { OidcSignIn, SSO_PENDING_MS, SsoRefused } from "./oidc-sign-in.ts";

const CLIENT = { clientId: "verbatim-web", clientSecret: "provider-issued-secret-of-at-least-32-chars", redirectUri: "http://127.0.0.1:9/login/sso/callback" };
let idp: LoopbackOidcProvider;
let now = Date.now();
let signIn: OidcSignIn;

beforeAll(async () => {
  idp = await LoopbackOidcProvider.listen();
  idp.serve(CLIENT, { "alice-at-idp": { email: "alice@firm.example", emailVerified: true } });
  signIn = new OidcSignIn(
    { issuer: idp.issuer, clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret, name: "Firm IdP" },
    { egress: parseEgressAllow("127.0.0.1"), now: () => now },
  );
});
afterAll(() => idp.close());

/** Starts a sign-in at `startedAt`, has the provider answer it, and hands the answer back `elapsed` later. */
async function answeredAfter(elapsed: number) {
  const startedAt = Date.now();
  now = startedAt;
  const { url, state } = await signIn.start(CLIENT.redirectUri, "/meetings", "ip:127.0.0.1/32");
  const back = await idp.signIn(url, "alice-at-idp");
  now = startedAt + elapsed;
  return signIn.finish({ state: back.searchParams.get("state"), cookieState: state, code: back.searchParams.get("code"), error: null }, CLIENT.redirectUri);
}

describe("single sign-on's time limit", () => {
  test("an answer 10 minutes less a second after the start signs in, with the email from UserInfo", async () => {
    const { person, returnTo } = await answeredAfter(SSO_PENDING_MS - 1000);
    expect(person).toEqual({ issuer: idp.issuer, subject: "alice-at-idp", email: "alice@firm.example", emailVerified: true });
    expect(returnTo).toBe("/meetings");
  });

  test("an answer more than 10 minutes after the start is refused", async () => {
    expect(SSO_PENDING_MS).toBe(10 * 60_000);
    const late = answeredAfter(10 * 60_000 + 1000);
    await expect(late).rejects.toBeInstanceOf(SsoRefused);
    await expect(late).rejects.toThrow("The sign-in expired");
  });
});
