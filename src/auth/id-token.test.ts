import { describe, expect, test } from "bun:test";
import { notAnAccessTokenReason } from "./id-token.ts";

const ACCESS = { sub: "u1", scope: "read:meetings" };

describe("notAnAccessTokenReason", () => {
  test("access tokens pass: typ at+jwt (any case, with or without application/), JWT or absent, with scope or scp", () => {
    for (const typ of ["at+jwt", "AT+JWT", "application/at+jwt", "JWT", "jwt", undefined]) {
      expect(notAnAccessTokenReason({ alg: "RS256", typ }, ACCESS)).toBeUndefined();
    }
    expect(notAnAccessTokenReason({ alg: "RS256" }, { sub: "u1", scp: [] })).toBeUndefined();
    expect(notAnAccessTokenReason({ alg: "RS256" }, { sub: "u1", scope: "" })).toBeUndefined();
  });

  test("typ at+jwt is trusted even with claims an ID token would have", () => {
    expect(notAnAccessTokenReason({ alg: "RS256", typ: "at+jwt" }, { sub: "u1", nonce: "n" })).toBeUndefined();
  });

  test("ID token claims (nonce, at_hash, c_hash) are refused under typ JWT or none", () => {
    for (const claim of ["nonce", "at_hash", "c_hash"]) {
      for (const typ of ["JWT", undefined]) {
        expect(notAnAccessTokenReason({ alg: "RS256", typ }, { ...ACCESS, [claim]: "x" })).toContain(`ID token (it carries ${claim})`);
      }
    }
  });

  test("no scope and no scp is refused as an ID token", () => {
    expect(notAnAccessTokenReason({ alg: "RS256", typ: "JWT" }, { sub: "u1", aud: "portal", azp: "portal" })).toContain("no scope or scp");
  });

  test("any other typ is refused", () => {
    for (const typ of ["id_token+jwt", "logout+jwt", "secevent+jwt", "dpop+jwt", "application/jose"]) {
      expect(notAnAccessTokenReason({ alg: "RS256", typ }, ACCESS)).toContain("is not an access token");
    }
  });
});
