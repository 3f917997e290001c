import { describe, expect, test } from "bun:test";
import { anonymousClientKey } from "./client-key.ts";

describe("anonymousClientKey", () => {
  test("IPv6 addresses of one /64 share a key; another /64 does not", () => {
    const a = anonymousClientKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd");
    expect(anonymousClientKey("2001:db8:1:2::1")).toBe(a);
    expect(anonymousClientKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe(a);
    expect(anonymousClientKey("2001:db8:1:3::1")).not.toBe(a);
    expect(a).toBe("ip:2001:db8:1:2::/64");
  });

  test("IPv4 counts per address, IPv4-mapped IPv6 as the IPv4 address", () => {
    expect(anonymousClientKey("192.0.2.7")).toBe("ip:192.0.2.7/32");
    expect(anonymousClientKey("::ffff:192.0.2.7")).toBe("ip:192.0.2.7/32");
    expect(anonymousClientKey("192.0.2.8")).not.toBe(anonymousClientKey("192.0.2.7"));
  });

  test("an unparsable address is kept as is", () => {
    expect(anonymousClientKey("unknown")).toBe("ip:unknown");
  });
});
