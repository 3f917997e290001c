// The configuration file and `verbatim config print` (issue 13, operations): TOML and JSON files,
// their precedence under flags and environment, zod validation naming the key, masked secrets,
// and a server that runs with what the file says.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, startServer } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([BUN, join(ROOT, "src/main.ts"), ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

test("config print: values from the TOML file, the environment over it, flags over both; secrets masked", async () => {
  const file = join(dir, "verbatim.toml");
  writeFileSync(
    file,
    [
      'data-dir = "/var/lib/verbatim"',
      "port = 9123",
      'host = "0.0.0.0"',
      'egress-allow = "10.0.0.0/8"',
      'metrics-token = "scrape-secret-42"',
      'smtp-url = "smtp://relay-user:relay-pass@relay.firm.example:25"',
      "workers = 2",
    ].join("\n"),
  );
  const { stdout, code, stderr } = await cli(["config", "print", "--config", file, "--workers", "3"], { VERBATIM_HOST: "127.0.0.2" });
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  const config = JSON.parse(stdout);
  expect(config["data-dir"]).toEqual({ value: "/var/lib/verbatim", source: "file" });
  expect(config.port).toEqual({ value: 9123, source: "file" });
  expect(config.host).toEqual({ value: "127.0.0.2", source: "env" });
  expect(config.workers).toEqual({ value: 3, source: "flag" });
  expect(config.currency).toEqual({ value: "EUR", source: "default" });
  expect(config["metrics-token"]).toEqual({ value: "****", source: "file" });
  expect(config["smtp-url"].value).toBe("smtp://relay-user:****@relay.firm.example:25");
  expect(stdout).not.toContain("scrape-secret-42");
  expect(stdout).not.toContain("relay-pass");
});

test("a JSON file works the same; a misspelt key, a wrong type or a bad value stops with a message naming it", async () => {
  const json = join(dir, "verbatim.json");
  writeFileSync(json, JSON.stringify({ port: 9200, "log-requests": true }));
  const ok = await cli(["config", "print", "--config", json]);
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.stdout)["log-requests"]).toEqual({ value: true, source: "file" });

  const misspelt = join(dir, "misspelt.toml");
  writeFileSync(misspelt, 'data_dir = "/x"');
  const a = await cli(["config", "print", "--config", misspelt]);
  expect(a.code).toBe(2);
  expect(a.stderr).toContain('key "data_dir" is not an option of this command');

  const wrongType = join(dir, "wrong.toml");
  writeFileSync(wrongType, 'port = "eighty"');
  const b = await cli(["config", "print", "--config", wrongType]);
  expect(b.code).toBe(2);
  expect(b.stderr).toContain('key "port"');

  const badValue = join(dir, "bad.toml");
  writeFileSync(badValue, 'currency = "euros"');
  const c = await cli(["config", "print", "--config", badValue]);
  expect(c.code).toBe(2);
  expect(c.stderr).toContain("--currency");

  const broken = join(dir, "broken.toml");
  writeFileSync(broken, "port = = 3");
  const d = await cli(["config", "print", "--config", broken]);
  expect(d.code).toBe(2);
  expect(d.stderr).toContain("not valid TOML");
});

test("serve runs with what the file says (VERBATIM_CONFIG names it)", async () => {
  const file = join(dir, "serve.toml");
  writeFileSync(file, ['metrics-token = "from-the-file"', 'rate-limits = "anonymous=1000"'].join("\n"));
  const server = await startServer({ env: { VERBATIM_CONFIG: file } });
  try {
    expect((await server.api("/metrics")).status).toBe(401);
    expect((await server.api("/metrics", { headers: { Authorization: "Bearer from-the-file" } })).status).toBe(200);
  } finally {
    await server.stop();
  }
});
