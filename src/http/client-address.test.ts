import { describe, expect, test } from "bun:test";
import { clientAddressResolver, forwardedElementsFor, hopAddress, parseTrustedProxies } from "./client-address.ts";

const resolver = (trusted: string, header: "x-forwarded-for" | "forwarded" = "x-forwarded-for") =>
  clientAddressResolver({ networks: parseTrustedProxies(trusted), header });
const headers = (init: Record<string, string>) => new Headers(init);

describe("clientAddressResolver", () => {
  test("without trusted proxies the peer is the client and no header is read", () => {
    const resolve = clientAddressResolver(null);
    let read = false;
    const spy = { get: () => ((read = true), "203.0.113.9") } as unknown as Headers;
    expect(resolve("127.0.0.1", spy)).toBe("127.0.0.1");
    expect(read).toBe(false);
  });

  test("a trusted peer's X-Forwarded-For names the client: the first untrusted hop from the right", () => {
    const resolve = resolver("127.0.0.1,10.0.0.0/8");
    expect(resolve("127.0.0.1", headers({ "x-forwarded-for": "203.0.113.9" }))).toBe("203.0.113.9");
    // The client wrote "198.51.100.1" itself; our proxies added 203.0.113.9 and 10.1.2.3.
    expect(resolve("127.0.0.1", headers({ "x-forwarded-for": "198.51.100.1, 203.0.113.9, 10.1.2.3" }))).toBe("203.0.113.9");
    expect(resolve("::ffff:127.0.0.1", headers({ "x-forwarded-for": "203.0.113.9" }))).toBe("203.0.113.9");
  });

  test("an untrusted peer's header is ignored", () => {
    const resolve = resolver("10.0.0.0/8");
    expect(resolve("127.0.0.1", headers({ "x-forwarded-for": "203.0.113.9" }))).toBe("127.0.0.1");
    expect(resolve("192.0.2.1", headers({ forwarded: "for=203.0.113.9" }))).toBe("192.0.2.1");
  });

  test("only the configured header is read: a client's own Forwarded passes through an X-Forwarded-For proxy unseen", () => {
    const resolve = resolver("127.0.0.1");
    expect(resolve("127.0.0.1", headers({ forwarded: "for=198.51.100.66", "x-forwarded-for": "203.0.113.9" }))).toBe("203.0.113.9");
    expect(resolve("127.0.0.1", headers({ forwarded: "for=198.51.100.66" }))).toBe("127.0.0.1");
  });

  test("RFC 7239 Forwarded: quoted IPv6 with port, several elements, other parameters", () => {
    const resolve = resolver("127.0.0.1,::1", "forwarded");
    expect(resolve("::1", headers({ forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https;by=_proxy' }))).toBe("2001:db8:cafe::17");
    expect(resolve("127.0.0.1", headers({ forwarded: "for=198.51.100.1, for=192.0.2.60;proto=http, for=127.0.0.1" }))).toBe("192.0.2.60");
    expect(resolve("127.0.0.1", headers({ "x-forwarded-for": "192.0.2.60" }))).toBe("127.0.0.1");
  });

  test("a hop that is no address ends the walk at the last trusted hop", () => {
    const resolve = resolver("127.0.0.1");
    expect(resolve("127.0.0.1", headers({ "x-forwarded-for": "203.0.113.9, unknown" }))).toBe("127.0.0.1");
    expect(resolve("127.0.0.1", headers({ "x-forwarded-for": "" }))).toBe("127.0.0.1");
  });

  test("addresses come out canonical, so one client is one key whatever its spelling", () => {
    const resolve = resolver("127.0.0.1");
    expect(resolve("127.0.0.1", headers({ "x-forwarded-for": "2001:DB8:0:0::1" }))).toBe("2001:db8::1");
    expect(resolve("127.0.0.1", headers({ "x-forwarded-for": "203.0.113.9:51234" }))).toBe("203.0.113.9");
  });
});

describe("parsing", () => {
  test("trusted proxies: addresses and CIDRs of both families; anything else is refused", () => {
    expect(parseTrustedProxies(" 127.0.0.1, ::1 ,10.0.0.0/8,fd00::/8,").length).toBe(4);
    expect(parseTrustedProxies("")).toEqual([]);
    expect(() => parseTrustedProxies("proxy.internal")).toThrow(/not an IPv4 or IPv6 address or CIDR/);
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow();
  });

  test("Forwarded elements: quoted commas and semicolons split nothing", () => {
    expect(forwardedElementsFor('for="a,b;c", For=192.0.2.1;by=x, proto=https')).toEqual(["a,b;c", "192.0.2.1", ""]);
  });

  test("hops", () => {
    expect(hopAddress("[2001:db8::1]:443")?.family).toBe(6);
    expect(hopAddress("[2001:db8::1]x")).toBeNull();
    expect(hopAddress("_hidden")).toBeNull();
    expect(hopAddress("unknown")).toBeNull();
  });
});
