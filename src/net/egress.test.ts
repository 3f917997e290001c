import { describe, expect, test } from "bun:test";
import { formatCidr } from "./addresses.ts";
import {
  EgressRefused,
  type EgressRefusalCode,
  type EgressPolicy,
  type Resolver,
  checkEgress,
  describeEgressPolicy,
  emptyEgressPolicy,
  isAddressAllowed,
  isHostAllowed,
  parseEgressAllow,
} from "./egress.ts";

/** A resolver from a fixed table; unknown names fail like NXDOMAIN. Records every query. */
function fakeResolver(table: Record<string, string[]>): Resolver & { queries: string[] } {
  const queries: string[] = [];
  const resolve = async (host: string) => {
    queries.push(host);
    const answer = table[host.endsWith(".") ? host.slice(0, -1) : host];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return answer;
  };
  return Object.assign(resolve, { queries });
}

const dns = fakeResolver({
  "audio.example.com": ["93.184.216.34"],
  "v6.example.com": ["2606:4700:4700::1111"],
  "dual.example.com": ["93.184.216.34", "2606:4700:4700::1111"],
  "internal.example": ["10.0.0.7"],
  "split.example.com": ["93.184.216.34", "192.168.1.5"],
  "split6.example.com": ["2606:4700:4700::1111", "fd00::5"],
  "mapped.example.com": ["::ffff:127.0.0.1"],
  "nat64.example.com": ["64:ff9b::a9fe:a9fe"],
  "meta.example.com": ["169.254.169.254"],
  "files.internal": ["10.20.30.40", "fd00::40"],
  "metadata.internal": ["169.254.169.254"],
  "garbage.example.com": ["not-an-address"],
  "empty.example.com": [],
});

async function refusal(promise: Promise<unknown>): Promise<EgressRefused> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(EgressRefused);
    return error as EgressRefused;
  }
  throw new Error("expected the URL to be refused");
}

async function expectRefused(url: string, code: EgressRefusalCode, policy: EgressPolicy = emptyEgressPolicy(), resolve: Resolver = dns) {
  const error = await refusal(checkEgress(url, policy, resolve));
  expect(error.code).toBe(code);
  return error;
}

describe("parseEgressAllow", () => {
  test("empty and missing text give an empty policy", () => {
    for (const text of [undefined, "", "  ", ",, ,"]) {
      const policy = parseEgressAllow(text);
      expect(policy.cidrs).toEqual([]);
      expect(policy.hosts.size).toBe(0);
    }
  });

  test("addresses, CIDRs and host names", () => {
    const policy = parseEgressAllow("10.0.0.0/8,files.internal,127.0.0.1,::1, fd00::/8  Media.Corp.Example. [fe80::1] 172.16.5.4/12");
    expect(policy.cidrs.map(formatCidr)).toEqual(["10.0.0.0/8", "127.0.0.1/32", "::1/128", "fd00::/8", "fe80::1/128", "172.16.0.0/12"]);
    expect([...policy.hosts]).toEqual(["files.internal", "media.corp.example"]);
    expect(describeEgressPolicy(policy)).toBe("10.0.0.0/8,127.0.0.1/32,::1/128,fd00::/8,fe80::1/128,172.16.0.0/12,files.internal,media.corp.example");

    expect(isAddressAllowed(policy, "10.200.0.1")).toBe(true);
    expect(isAddressAllowed(policy, "::ffff:10.200.0.1")).toBe(true);
    expect(isAddressAllowed(policy, "127.0.0.2")).toBe(false);
    expect(isAddressAllowed(policy, "fd99::1")).toBe(true);
    expect(isHostAllowed(policy, "FILES.internal.")).toBe(true);
    expect(isHostAllowed(policy, "other.internal")).toBe(false);
    expect(isHostAllowed(policy, "sub.files.internal")).toBe(false);
  });

  test("internationalized names are stored in punycode", () => {
    expect([...parseEgressAllow("bücher.intern").hosts]).toEqual(["xn--bcher-kva.intern"]);
  });

  test.each([
    ["10.0.0.0/33", /not a valid CIDR/],
    ["10.0.0.0/", /not a valid CIDR/],
    ["::/129", /not a valid CIDR/],
    ["files.internal/8", /not a valid CIDR/],
    ["10.0.0.256", /not a valid IPv4 address/],
    ["10.0.0", /not a valid IPv4 address/],
    ["0x7f.1", /not a valid IPv4 address/],
    ["010.0.0.1", /not a valid IPv4 address/],
    ["https://files.internal", /not a URL/],
    ["files.internal:8080", /ports are not part/],
    ["1:2:3", /not a valid IP address/],
    ["*.internal", /wildcards are not supported/],
    ["user@files.internal", /not a valid host name/],
    ["bad_host-.example..com", /not a valid host name/],
    ["-leading.example", /not a valid host name/],
  ])("refuses %p", (text, message) => {
    expect(() => parseEgressAllow(`127.0.0.1,${text}`)).toThrow(message);
    // The message names the entry so the operator can find it.
    expect(() => parseEgressAllow(text)).toThrow(`"${text}"`);
  });
});

describe("checkEgress, default policy", () => {
  test("a public name is allowed and its addresses returned", async () => {
    const result = await checkEgress("https://audio.example.com/rec/1.mp3?sig=abc", emptyEgressPolicy(), dns);
    expect(result.url.href).toBe("https://audio.example.com/rec/1.mp3?sig=abc");
    expect(result.addresses).toEqual(["93.184.216.34"]);
  });

  test("both families, ports and public IP literals are allowed", async () => {
    expect((await checkEgress("https://dual.example.com:8443/a", emptyEgressPolicy(), dns)).addresses).toEqual([
      "93.184.216.34",
      "2606:4700:4700::1111",
    ]);
    expect((await checkEgress("https://v6.example.com/a", emptyEgressPolicy(), dns)).addresses).toEqual(["2606:4700:4700::1111"]);
    const literal = fakeResolver({});
    expect((await checkEgress("https://93.184.216.34/a", emptyEgressPolicy(), literal)).addresses).toEqual(["93.184.216.34"]);
    expect((await checkEgress("https://[2606:4700:4700::1111]:444/a", emptyEgressPolicy(), literal)).addresses).toEqual([
      "2606:4700:4700::1111",
    ]);
    // Literals never reach the resolver.
    expect(literal.queries).toEqual([]);
  });

  test("http is refused, without a DNS query", async () => {
    const resolver = fakeResolver({ "audio.example.com": ["93.184.216.34"] });
    const error = await expectRefused("http://audio.example.com/a.mp3", "url_not_https", emptyEgressPolicy(), resolver);
    expect(error.message).toContain("https");
    expect(resolver.queries).toEqual([]);
    await expectRefused("http://93.184.216.34/a.mp3", "url_not_https");
  });

  test("other schemes and malformed URLs are refused", async () => {
    await expectRefused("ftp://audio.example.com/a.mp3", "url_not_https");
    await expectRefused("file:///etc/passwd", "url_not_https");
    await expectRefused("gopher://127.0.0.1:6379/_INFO", "url_not_https");
    await expectRefused("not a url", "url_invalid");
    await expectRefused("/relative/path.mp3", "url_invalid");
    await expectRefused("https://[::1/", "url_invalid");
  });

  test("userinfo is refused", async () => {
    await expectRefused("https://user:pass@audio.example.com/a.mp3", "url_invalid");
    await expectRefused("https://user@audio.example.com/a.mp3", "url_invalid");
    await expectRefused("https://:pass@audio.example.com/a.mp3", "url_invalid");
  });

  test("loopback literals are refused", async () => {
    for (const url of ["https://127.0.0.1/", "https://127.1.2.3:8443/x", "https://[::1]/", "https://[0:0:0:0:0:0:0:1]/", "https://[::ffff:127.0.0.1]/"]) {
      const error = await expectRefused(url, "address_not_allowed");
      expect(error.message).toContain("loopback");
    }
  });

  test("localhost via the real system resolver is refused", async () => {
    // No resolver argument: node:dns lookup (getaddrinfo, /etc/hosts).
    const error = await refusal(checkEgress("https://localhost/", emptyEgressPolicy()));
    expect(error.code).toBe("address_not_allowed");
    expect(error.message).toBe("Host localhost resolves to a loopback address, which is not allowed");
    // Whether getaddrinfo answers for the absolute "localhost." depends on the host; either way it is refused.
    expect(["address_not_allowed", "host_unresolvable"]).toContain((await refusal(checkEgress("https://LOCALHOST./a", emptyEgressPolicy()))).code);
    // The same name is fine once the operator allows loopback.
    const allowed = await checkEgress("http://localhost:9/", parseEgressAllow("127.0.0.0/8,::1"));
    expect(allowed.addresses.length).toBeGreaterThan(0);
  });

  test("odd IPv4 spellings are normalized by the URL parser and refused", async () => {
    for (const url of [
      "https://2130706433/",
      "https://0177.0.0.1/",
      "https://0x7f.1/",
      "https://0x7f000001/",
      "https://127.1/",
      "https://0/",
      "https://0251.0376.0251.0376/", // 169.254.169.254 in octal
      "https://2852039166/", // 169.254.169.254 in decimal
    ]) {
      const error = await expectRefused(url, "address_not_allowed", emptyEgressPolicy(), fakeResolver({}));
      expect(error.message).toMatch(/^Address (127\.0\.0\.1|0\.0\.0\.0|169\.254\.169\.254) is/);
    }
  });

  test("private, link-local, metadata, multicast and reserved addresses are refused", async () => {
    const cases: [string, string][] = [
      ["https://internal.example/a.mp3", "private"],
      ["https://10.1.2.3/", "private"],
      ["https://192.168.0.10/", "private"],
      ["https://172.20.0.1/", "private"],
      ["https://100.64.0.1/", "private"],
      ["https://[fd00::1]/", "private"],
      ["https://169.254.10.1/", "link-local"],
      ["https://[fe80::1]/", "link-local"],
      ["https://169.254.169.254/latest/meta-data/", "metadata"],
      ["https://169.254.170.2/v2/credentials", "metadata"],
      ["https://[fd00:ec2::254]/", "metadata"],
      ["https://meta.example.com/", "metadata"],
      ["https://nat64.example.com/", "metadata"],
      ["https://mapped.example.com/", "loopback"],
      ["https://224.0.0.1/", "multicast"],
      ["https://[ff02::1]/", "multicast"],
      ["https://0.0.0.0/", "unspecified"],
      ["https://[::]/", "unspecified"],
      ["https://255.255.255.255/", "reserved"],
      ["https://192.0.2.1/", "reserved"],
      ["https://[2001:db8::1]/", "reserved"],
    ];
    for (const [url, kind] of cases) {
      const error = await expectRefused(url, "address_not_allowed");
      expect(error.message).toContain(kind);
    }
  });

  test("a name answering one public and one private address is refused", async () => {
    await expectRefused("https://split.example.com/a.mp3", "address_not_allowed");
    await expectRefused("https://split6.example.com/a.mp3", "address_not_allowed");
  });

  test("the message for a name does not echo the internal address", async () => {
    const error = await expectRefused("https://internal.example/a.mp3", "address_not_allowed");
    expect(error.message).not.toContain("10.0.0.7");
    expect(error.message).toContain("internal.example");
  });

  test("unresolvable names are refused", async () => {
    const unknown = await expectRefused("https://nowhere.example.com/", "host_unresolvable");
    expect(unknown.cause).toBeInstanceOf(Error);
    await expectRefused("https://empty.example.com/", "host_unresolvable");
    await expectRefused("https://garbage.example.com/", "host_unresolvable");
  });
});

describe("checkEgress with an allowlist", () => {
  const policy = parseEgressAllow("10.0.0.0/8,files.internal,127.0.0.1,metadata.internal");

  test("an address inside an allowed CIDR is allowed, https and http", async () => {
    expect((await checkEgress("https://internal.example/a.mp3", policy, dns)).addresses).toEqual(["10.0.0.7"]);
    expect((await checkEgress("http://internal.example:8080/a.mp3", policy, dns)).url.port).toBe("8080");
    expect((await checkEgress("http://10.9.9.9/a.mp3", policy, dns)).addresses).toEqual(["10.9.9.9"]);
    expect((await checkEgress("http://127.0.0.1:3000/a.mp3", policy, dns)).addresses).toEqual(["127.0.0.1"]);
    expect((await checkEgress("http://[::ffff:127.0.0.1]:3000/a.mp3", policy, dns)).addresses).toEqual(["::ffff:7f00:1"]);
  });

  test("a host allowed by name may use http and private addresses of both families", async () => {
    const result = await checkEgress("http://files.internal/meetings/1.wav", policy, dns);
    expect(result.addresses).toEqual(["10.20.30.40", "fd00::40"]);
    expect((await checkEgress("https://FILES.INTERNAL./x", policy, dns)).addresses).toHaveLength(2);
  });

  test("a name allowlist does not open cloud metadata addresses", async () => {
    await expectRefused("https://metadata.internal/", "address_not_allowed", policy);
    // An explicit address entry does.
    const explicit = parseEgressAllow("169.254.169.254");
    expect((await checkEgress("http://169.254.169.254/", explicit, dns)).addresses).toEqual(["169.254.169.254"]);
  });

  test("addresses outside the allowlist stay refused", async () => {
    await expectRefused("https://127.0.0.2/", "address_not_allowed", policy);
    await expectRefused("https://[::1]/", "address_not_allowed", policy);
    await expectRefused("https://192.168.1.1/", "address_not_allowed", policy);
    await expectRefused("http://169.254.169.254/", "address_not_allowed", policy);
    await expectRefused("https://split.example.com/", "address_not_allowed", policy);
  });

  test("a name with one allowed and one refused address is refused", async () => {
    const resolver = fakeResolver({ "mixed.example": ["10.0.0.1", "192.168.0.1"] });
    await expectRefused("https://mixed.example/", "address_not_allowed", policy, resolver);
  });

  test("http to a public host stays refused even with an allowlist", async () => {
    await expectRefused("http://audio.example.com/a.mp3", "url_not_https", policy);
    await expectRefused("http://93.184.216.34/a.mp3", "url_not_https", policy);
    // A name answering one allowed and one public address is not wholly internal: no http.
    const resolver = fakeResolver({ "half.example": ["10.0.0.1", "93.184.216.34"] });
    await expectRefused("http://half.example/", "url_not_https", policy, resolver);
    expect((await checkEgress("https://half.example/", policy, resolver)).addresses).toEqual(["10.0.0.1", "93.184.216.34"]);
  });

  test("userinfo is refused even for allowed hosts", async () => {
    await expectRefused("http://user:pw@files.internal/a.wav", "url_invalid", policy);
  });
});
