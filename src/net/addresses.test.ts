import { describe, expect, test } from "bun:test";
import {
  type AddressClass,
  cidrContains,
  classifyAddress,
  formatCidr,
  formatIP,
  parseCidr,
  parseIP,
  parseIPv4,
  parseIPv6,
} from "./addresses.ts";

describe("parseIPv4", () => {
  test("accepts dotted decimal", () => {
    expect([...parseIPv4("192.168.1.20")!.bytes]).toEqual([192, 168, 1, 20]);
    expect([...parseIPv4("0.0.0.0")!.bytes]).toEqual([0, 0, 0, 0]);
    expect([...parseIPv4("255.255.255.255")!.bytes]).toEqual([255, 255, 255, 255]);
  });

  test.each(["256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "0x7f.0.0.1", "1.2.3.-4", "1.2.3.4 ", "", "a.b.c.d", "2130706433"])(
    "refuses %p",
    (text) => {
      expect(parseIPv4(text)).toBeNull();
    },
  );
});

describe("parseIPv6", () => {
  const cases: [string, string][] = [
    ["::", "::"],
    ["::1", "::1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2001:db8::", "2001:db8::"],
    ["fe80::1%eth0", "fe80::1"],
    ["::ffff:127.0.0.1", "::ffff:7f00:1"],
    ["::ffff:7f00:1", "::ffff:7f00:1"],
    ["64:ff9b::10.0.0.1", "64:ff9b::a00:1"],
    ["::1.2.3.4", "::102:304"],
    ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"],
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"],
    ["1::8", "1::8"],
    ["1:0:0:2:0:0:0:3", "1:0:0:2::3"],
  ];
  test.each(cases)("parses %p as %p", (text, canonical) => {
    const ip = parseIPv6(text);
    expect(ip).not.toBeNull();
    expect(ip!.family).toBe(6);
    expect(formatIP(ip!)).toBe(canonical);
  });

  test.each([":::", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "::1:", ":1", "12345::", "g::1", "::1.2.3", "1:2:3:4:5:6:7:1.2.3.4", "fe80::1%", "[::1]", ""])(
    "refuses %p",
    (text) => {
      expect(parseIPv6(text)).toBeNull();
    },
  );
});

describe("parseIP", () => {
  test("takes both families, and IPv6 in brackets", () => {
    expect(parseIP("10.1.2.3")?.family).toBe(4);
    expect(parseIP("[::1]")?.family).toBe(6);
    expect(parseIP("fd00::1")?.family).toBe(6);
    expect(parseIP("files.internal")).toBeNull();
    expect(parseIP("[10.0.0.1]")).toBeNull();
  });
});

describe("CIDR", () => {
  test("parses and normalizes host bits", () => {
    expect(formatCidr(parseCidr("10.1.2.3/8")!)).toBe("10.0.0.0/8");
    expect(formatCidr(parseCidr("fd12:3456::1/16")!)).toBe("fd12::/16");
    expect(formatCidr(parseCidr("127.0.0.1")!)).toBe("127.0.0.1/32");
    expect(formatCidr(parseCidr("::1")!)).toBe("::1/128");
    expect(formatCidr(parseCidr("0.0.0.0/0")!)).toBe("0.0.0.0/0");
    // A mapped IPv6 network is its IPv4 network.
    expect(formatCidr(parseCidr("::ffff:10.0.0.0/104")!)).toBe("10.0.0.0/8");
  });

  test.each(["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/08", "10.0.0/8", "x/8", "10.0.0.0/8/8"])(
    "refuses %p",
    (text) => {
      expect(parseCidr(text)).toBeNull();
    },
  );

  test("matching", () => {
    const ten = parseCidr("10.0.0.0/8")!;
    expect(cidrContains(ten, "10.255.1.2")).toBe(true);
    expect(cidrContains(ten, "11.0.0.1")).toBe(false);
    expect(cidrContains(ten, "9.255.255.255")).toBe(false);
    // IPv4-mapped IPv6 matches the IPv4 network; other IPv6 never does.
    expect(cidrContains(ten, "::ffff:10.9.8.7")).toBe(true);
    expect(cidrContains(ten, "::ffff:a09:807")).toBe(true);
    expect(cidrContains(ten, "::a09:807")).toBe(false);

    const odd = parseCidr("172.16.0.0/12")!;
    expect(cidrContains(odd, "172.31.255.255")).toBe(true);
    expect(cidrContains(odd, "172.32.0.0")).toBe(false);

    const ula = parseCidr("fd00::/8")!;
    expect(cidrContains(ula, "fd12::1")).toBe(true);
    expect(cidrContains(ula, "fc00::1")).toBe(false);
    expect(cidrContains(ula, "10.0.0.1")).toBe(false);

    const host = parseCidr("::1")!;
    expect(cidrContains(host, "0:0:0:0:0:0:0:1")).toBe(true);
    expect(cidrContains(host, "::2")).toBe(false);

    const all = parseCidr("0.0.0.0/0")!;
    expect(cidrContains(all, "203.0.113.9")).toBe(true);
    expect(cidrContains(all, "2001:db8::1")).toBe(false);
    expect(cidrContains(all, "not an ip")).toBe(false);
  });
});

describe("classifyAddress", () => {
  const table: [string, AddressClass][] = [
    // IPv4
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.254", "private"],
    ["100.128.0.1", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.1.1", "link_local"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["172.15.255.255", "public"],
    ["192.0.0.8", "reserved"],
    ["192.0.2.10", "reserved"],
    ["192.168.0.1", "private"],
    ["192.169.0.1", "public"],
    ["198.18.0.1", "reserved"],
    ["198.19.255.255", "reserved"],
    ["198.20.0.1", "public"],
    ["198.51.100.7", "reserved"],
    ["203.0.113.9", "reserved"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["8.8.8.8", "public"],
    ["93.184.216.34", "public"],
    ["1.1.1.1", "public"],
    // IPv6
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "link_local"],
    ["fe80::1%eth0", "link_local"],
    ["febf::1", "link_local"],
    ["ff02::1", "multicast"],
    ["ff05::1:3", "multicast"],
    ["2001:db8::1", "reserved"],
    ["fd00:ec2::254", "metadata"],
    ["fd00:ec2::253", "private"],
    ["2606:4700:4700::1111", "public"],
    ["2a00:1450:4001:80b::200e", "public"],
    // IPv4-mapped: the embedded address decides.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:8.8.8.8", "public"],
    ["0:0:0:0:0:ffff:c0a8:0101", "private"],
    // NAT64 well-known prefix: the embedded address decides.
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["64:ff9b::8.8.8.8", "public"],
    ["64:ff9b:1::1", "private"],
    // 6to4 embeds an IPv4 address too.
    ["2002:7f00:1::1", "loopback"],
    ["2002:0808:0808::1", "public"],
    // Deprecated IPv4-compatible and other non-global space.
    ["::127.0.0.1", "reserved"],
    ["::8.8.8.8", "reserved"],
    ["100::1", "reserved"],
    ["fec0::1", "private"],
    ["4000::1", "reserved"],
  ];
  test.each(table)("%p is %p", (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  test("accepts parsed addresses and refuses non-addresses", () => {
    expect(classifyAddress(parseIP("192.168.3.4")!)).toBe("private");
    expect(() => classifyAddress("localhost")).toThrow(TypeError);
    expect(() => classifyAddress("999.1.1.1")).toThrow(TypeError);
  });
});
