import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import { trustedCertificates } from "./trust.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-trust-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pem = (name: string) => `-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`;

test("without --ca-file the runtime's defaults apply (system roots and NODE_EXTRA_CA_CERTS)", () => {
  expect(trustedCertificates(null)).toBeUndefined();
});

test("with --ca-file: the system roots, NODE_EXTRA_CA_CERTS's file and the bundle, all trusted", () => {
  const bundle = join(dir, "internal.pem");
  const extra = join(dir, "extra.pem");
  writeFileSync(bundle, pem("INTERNAL"));
  writeFileSync(extra, pem("EXTRA"));
  const trusted = trustedCertificates(bundle, { NODE_EXTRA_CA_CERTS: extra })!;
  expect(trusted).toContain("INTERNAL");
  expect(trusted).toContain("EXTRA");
  expect(trusted).toContain(rootCertificates[0]!);
  expect(trustedCertificates(bundle, {})).not.toContain("EXTRA");
});

test("a file holding no certificate is refused with the option's name", () => {
  const bad = join(dir, "bad.pem");
  writeFileSync(bad, "not a certificate");
  expect(() => trustedCertificates(bad, {})).toThrow("--ca-file");
});
