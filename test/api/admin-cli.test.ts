import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { SERVE_OPTIONS } from "../../src/config-options.ts";
import { BUN, expectProblem, ROOT, runCli, startServer, type TestServer } from "../helpers/server.ts";

const KEY_FORMAT = /^vb_live_[0-9A-Za-z]{32,}$/;

let server: TestServer;

beforeAll(async () => {
  server = await startServer(); // default rate limits: free 30, standard 60, pro 120
});

afterAll(async () => {
  await server?.stop();
});

/** Runs the CLI with extra environment variables (runCli inherits the test's own environment). */
async function runWithEnv(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([BUN, join(ROOT, "src/main.ts"), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function createKey(email: string, scopes: string, name = "test") {
  const result = await server.admin("key", "create", "--email", email, "--name", name, "--scopes", scopes, "--json");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as { id: string; key: string; name: string; scopes: string[] };
}

describe("admin user create", () => {
  test("--json prints the user with id, email and plan", async () => {
    const result = await server.admin("user", "create", "--email", "Erin@Example.com", "--name", "Erin Example", "--plan", "standard", "--json");
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const user = JSON.parse(result.stdout) as any;
    expect(user).toMatchObject({ object: "user", email: "erin@example.com", name: "Erin Example", plan: "standard" });
    expect(user.id).toMatch(/^usr_\w+$/);
    expect(Number.isNaN(Date.parse(user.created_at))).toBe(false);

    const list = await server.admin("user", "list", "--json");
    expect(list.code).toBe(0);
    const users = JSON.parse(list.stdout) as any[];
    expect(users[0].email).toBe("admin@localhost");
    expect(users.find((u) => u.email === "erin@example.com")).toMatchObject({ id: user.id, plan: "standard" });
  });

  test("without --json it prints one line; the default plan is free", async () => {
    const result = await server.admin("user", "create", "--email", "frank@example.com");
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^created user usr_\w+ frank@example\.com \(free\)$/);
  });

  test("the same email again exits 2 with a message, in any case", async () => {
    const again = await server.admin("user", "create", "--email", "erin@example.com", "--plan", "pro", "--json");
    expect(again.code).toBe(2);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain("already exists");
    const upper = await server.admin("user", "create", "--email", "ERIN@EXAMPLE.COM");
    expect(upper.code).toBe(2);
    expect(upper.stderr).toContain("already exists");
  });

  test("--plan gold exits 2 naming the plans", async () => {
    const result = await server.admin("user", "create", "--email", "gold@example.com", "--plan", "gold");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--plan must be one of free, standard, pro");
    // Nothing was created.
    const list = JSON.parse((await server.admin("user", "list", "--json")).stdout) as any[];
    expect(list.map((u) => u.email)).not.toContain("gold@example.com");
  });

  test("a missing --email or a bad address exits 2", async () => {
    const missing = await server.admin("user", "create", "--plan", "free");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--email is required");
    const bad = await server.admin("user", "create", "--email", "not-an-email");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("not an email address");
  });
});

describe("admin key create", () => {
  beforeAll(async () => {
    for (const [email, plan] of [
      ["free@example.com", "free"],
      ["standard@example.com", "standard"],
      ["pro@example.com", "pro"],
    ]) {
      const result = await server.admin("user", "create", "--email", email!, "--plan", plan!);
      if (result.code !== 0) throw new Error(result.stderr);
    }
  });

  test("--json prints {id, key, name, scopes} and the key works at once against the running server", async () => {
    const result = await server.admin("key", "create", "--email", "standard@example.com", "--name", "ci", "--scopes", "read:meetings,webhooks", "--json");
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout) as any;
    expect(Object.keys(created).sort()).toEqual(["id", "key", "name", "scopes"]);
    expect(created.id).toMatch(/^key_\w+$/);
    expect(created.key).toMatch(KEY_FORMAT);
    expect(created.name).toBe("ci");
    expect(created.scopes).toEqual(["read:meetings", "webhooks"]);

    const response = await server.api("/api/v1/me", { key: created.key });
    expect(response.status).toBe(200);
    const me = (await response.json()) as any;
    expect(me.user.email).toBe("standard@example.com");
    expect(me.credential).toMatchObject({ type: "api_key", id: created.id, name: "ci", scopes: ["read:meetings", "webhooks"] });
    // read:meetings really is granted, read:usage-only operations are not part of it.
    expect((await server.api("/api/v1/clients", { key: created.key })).status).toBe(200);
  });

  test("two keys are never the same", async () => {
    const [a, b] = await Promise.all([createKey("pro@example.com", "all", "a"), createKey("pro@example.com", "all", "b")]);
    expect(a.key).not.toBe(b.key);
    expect(a.id).not.toBe(b.id);
    expect(a.scopes).toHaveLength(7);
  });

  test("the key's plan sets X-RateLimit-Limit: free 30, standard 60, pro 120", async () => {
    for (const [email, limit] of [
      ["free@example.com", "30"],
      ["standard@example.com", "60"],
      ["pro@example.com", "120"],
    ] as const) {
      const { key } = await createKey(email, "read:usage");
      const response = await server.api("/api/v1/me", { key });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBe(limit);
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(Number(limit) - 1));
      const body = (await response.json()) as any;
      expect(body.rate_limit.limit).toBe(Number(limit));
    }
    expect((await server.api("/api/v1/me", { key: server.adminKey })).headers.get("x-ratelimit-limit")).toBe("120");
  });

  test("without --json the key is printed once, on its own line", async () => {
    const result = await server.admin("key", "create", "--email", "free@example.com", "--name", "text", "--scopes", "read:usage");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^created key key_\w+ \(text; read:usage\)/);
    const key = result.stdout.split("\n").map((l) => l.trim()).find((l) => l.startsWith("vb_live_"));
    expect(key).toMatch(KEY_FORMAT);
    expect((await server.api("/api/v1/me", { key })).status).toBe(200);
  });

  test("--scopes bogus exits 2 naming the unknown scope, and creates nothing", async () => {
    const before = (JSON.parse((await server.admin("key", "list", "--json")).stdout) as any[]).length;
    const result = await server.admin("key", "create", "--email", "free@example.com", "--name", "x", "--scopes", "bogus", "--json");
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("unknown scope(s): bogus");
    const mixed = await server.admin("key", "create", "--email", "free@example.com", "--name", "x", "--scopes", "read:meetings,bogus");
    expect(mixed.code).toBe(2);
    const after = (JSON.parse((await server.admin("key", "list", "--json")).stdout) as any[]).length;
    expect(after).toBe(before);
  });

  test("a key for an unknown user, or without --name, exits 2", async () => {
    const unknown = await server.admin("key", "create", "--email", "nobody@example.com", "--name", "x", "--scopes", "all");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no user with email nobody@example.com");
    const noName = await server.admin("key", "create", "--email", "free@example.com", "--scopes", "all");
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("--name is required");
  });
});

describe("admin key list and revoke", () => {
  let created: { id: string; key: string };

  beforeAll(async () => {
    const user = await server.admin("user", "create", "--email", "lister@example.com", "--plan", "free");
    if (user.code !== 0) throw new Error(user.stderr);
    created = await createKey("lister@example.com", "read:meetings,read:usage", "laptop");
  });

  test("key list --json never contains a plaintext key, and shows key_hint", async () => {
    const result = await server.admin("key", "list", "--json");
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(created.key);
    expect(result.stdout).not.toContain(server.adminKey);
    expect(result.stdout).not.toMatch(/vb_live_[0-9A-Za-z]{8,}/);
    const keys = JSON.parse(result.stdout) as any[];
    const mine = keys.find((k) => k.id === created.id);
    expect(mine).toMatchObject({
      object: "api_key",
      name: "laptop",
      scopes: ["read:meetings", "read:usage"],
      key_hint: `vb_live_…${created.key.slice(-4)}`,
      revoked_at: null,
    });
    expect(mine).not.toHaveProperty("key");
    expect(mine).not.toHaveProperty("key_hash");
    for (const k of keys) expect(k.key_hint).toMatch(/^vb_live_…[0-9A-Za-z]{4}$/);
  });

  test("key list --email shows only that user's keys; the text form hides keys too", async () => {
    const json = JSON.parse((await server.admin("key", "list", "--email", "lister@example.com", "--json")).stdout) as any[];
    expect(json.map((k) => k.id)).toEqual([created.id]);
    const text = await server.admin("key", "list");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(created.id);
    expect(text.stdout).not.toContain(created.key);
    expect(text.stdout).not.toContain(server.adminKey);
  });

  test("revoking a key makes the running server answer 401; revoking again exits 2", async () => {
    const victim = await createKey("lister@example.com", "read:meetings", "to-revoke");
    expect((await server.api("/api/v1/me", { key: victim.key })).status).toBe(200);

    const revoke = await server.admin("key", "revoke", "--id", victim.id, "--json");
    expect(revoke.code).toBe(0);
    expect(JSON.parse(revoke.stdout)).toEqual({ id: victim.id, revoked: true });

    const body = await expectProblem(await server.api("/api/v1/me", { key: victim.key }), 401, "unauthorized");
    expect(body.detail).toMatch(/revoked/i);

    const listed = (JSON.parse((await server.admin("key", "list", "--email", "lister@example.com", "--json")).stdout) as any[]).find(
      (k) => k.id === victim.id,
    );
    expect(Number.isNaN(Date.parse(listed.revoked_at))).toBe(false);

    const again = await server.admin("key", "revoke", "--id", victim.id);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`no active key with id ${victim.id}`);
    // The user's other key still works.
    expect((await server.api("/api/v1/me", { key: created.key })).status).toBe(200);
  });

  test("revoking an id that does not exist exits 2", async () => {
    const result = await server.admin("key", "revoke", "--id", "key_doesnotexist");
    expect(result.code).toBe(2);
  });
});

describe("admin token create and revoke", () => {
  test("--ttl above the maximum lifetime (default 24 h) exits 2 naming the limit; up to it works", async () => {
    const over = await server.admin("token", "create", "--email", "admin@localhost", "--scopes", "all", "--ttl", "86401", "--json");
    expect(over.code).toBe(2);
    expect(over.stdout).toBe("");
    expect(over.stderr).toContain("--ttl 86401 is above the longest token lifetime, 86400 seconds (--token-max-ttl");
    const day = await server.admin("token", "create", "--email", "admin@localhost", "--scopes", "all", "--ttl", "86400", "--json");
    expect(day.code).toBe(0);
    expect(JSON.parse(day.stdout).expires_in).toBe(86400);
  });

  test("the maximum is --token-max-ttl, or VERBATIM_TOKEN_MAX_TTL", async () => {
    const raised = await server.admin("token", "create", "--email", "admin@localhost", "--scopes", "all", "--ttl", "100000", "--token-max-ttl", "172800", "--json");
    expect(raised.code).toBe(0);
    const lowered = await runWithEnv(
      ["admin", "token", "create", "--email", "admin@localhost", "--scopes", "all", "--ttl", "3600", "--data-dir", server.dataDir],
      { VERBATIM_TOKEN_MAX_TTL: "600" },
    );
    expect(lowered.code).toBe(2);
    expect(lowered.stderr).toContain("above the longest token lifetime, 600 seconds");
  });

  test("--json gives the token's jti and expiry; text mode prints the token alone on stdout and the jti on stderr", async () => {
    const json = await server.admin("token", "create", "--email", "admin@localhost", "--scopes", "read:usage", "--ttl", "120", "--json");
    const minted = JSON.parse(json.stdout) as any;
    expect(minted.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(Date.parse(minted.expires_at) - (Date.now() + 120_000))).toBeLessThan(10_000);
    const [, payload] = minted.access_token.split(".");
    expect(JSON.parse(Buffer.from(payload, "base64url").toString()).jti).toBe(minted.jti);

    const text = await server.admin("token", "create", "--email", "admin@localhost", "--scopes", "read:usage");
    expect(text.code).toBe(0);
    expect(text.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const jti = /token id \(jti\) ([0-9a-f-]{36})/.exec(text.stderr)?.[1];
    expect(jti).toBeDefined();
    expect(text.stderr).toContain(`verbatim admin token revoke --jti ${jti}`);
  });

  test("revoke needs exactly one of --jti and --token; a token not signed here is refused; revoking twice says so", async () => {
    expect((await server.admin("token", "revoke")).code).toBe(2);
    const both = await server.admin("token", "revoke", "--jti", "x", "--token", "y");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("exactly one of --jti and --token");
    const forged = await server.admin("token", "revoke", "--token", "eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOiJ4In0.c2ln");
    expect(forged.code).toBe(2);
    expect(forged.stderr).toContain("not an access token signed by this service's key");

    const jti = crypto.randomUUID();
    const first = await server.admin("token", "revoke", "--jti", jti, "--json");
    expect(first.code).toBe(0);
    const revoked = JSON.parse(first.stdout) as any;
    expect(revoked).toMatchObject({ jti, revoked: true, already_revoked: false });
    // Without the token, the revocation is kept for the maximum lifetime (24 h) and a minute.
    expect(Math.abs(Date.parse(revoked.refused_until) - (Date.now() + 86_460_000))).toBeLessThan(10_000);
    const again = await server.admin("token", "revoke", "--jti", jti);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`already revoked token ${jti}`);
  });

  test("serve refuses its own tokens that live longer than its VERBATIM_TOKEN_MAX_TTL", async () => {
    const strict = await startServer({ env: { VERBATIM_TOKEN_MAX_TTL: "600" } });
    try {
      const mint = async (ttl: string) =>
        JSON.parse((await strict.admin("token", "create", "--email", "admin@localhost", "--scopes", "all", "--ttl", ttl, "--token-max-ttl", "7200", "--json")).stdout)
          .access_token as string;
      const body = await expectProblem(await strict.api("/api/v1/me", { key: await mint("3600") }), 401, "unauthorized");
      expect(body.detail).toMatch(/lives longer than this service allows \(600 s\)/);
      expect((await strict.api("/api/v1/me", { key: await mint("600") })).status).toBe(200);
    } finally {
      await strict.stop();
    }
  });
});

describe("help, unknown commands and options", () => {
  const helpCases = [
    [],
    ["serve"],
    ["admin"],
    ["admin", "user", "create"],
    ["admin", "user", "list"],
    ["admin", "key", "create"],
    ["admin", "key", "list"],
    ["admin", "key", "revoke"],
    ["admin", "token", "create"],
    ["admin", "token", "revoke"],
  ];
  for (const words of helpCases) {
    test(`${["verbatim", ...words].join(" ")} --help exits 0 with usage`, async () => {
      const result = await runCli([...words, "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toStartWith("Usage: verbatim");
      expect(result.stdout).toContain("--help");
    });
  }

  test("top-level help lists every command", async () => {
    const { stdout } = await runCli(["--help"]);
    for (const name of ["serve", "admin user create", "admin user list", "admin key create", "admin key list", "admin key revoke", "admin token create", "admin token revoke"]) {
      expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
    }
  });

  test("admin key create --help documents its options", async () => {
    const { stdout } = await runCli(["admin", "key", "create", "--help"]);
    for (const flag of ["--email", "--name", "--scopes", "--json", "--data-dir"]) expect(stdout).toContain(flag);
  });

  test("serve --help (and, for the models commands' own, models install --help) lists every VERBATIM_* environment variable", async () => {
    const serve = await runCli(["serve", "--help"]);
    expect(serve.code).toBe(0);
    const stdout = serve.stdout + (await runCli(["models", "install", "--help"])).stdout;
    for (const name of ["VERBATIM_HOST", "VERBATIM_PORT", "VERBATIM_DATA_DIR", "VERBATIM_MODELS_DIR", "VERBATIM_RATE_LIMITS"]) {
      expect(stdout).toContain(`env ${name}`);
    }
    for (const spec of SERVE_OPTIONS) if (spec.env) expect(stdout).toContain(`env ${spec.env}`);
    // Any VERBATIM_* name the source mentions must be in that help, except VERBATIM_INTERNAL_*,
    // which the service sets for its own child processes, and VERBATIM_SETUP_MODELS (setup only).
    const mentioned = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith(".ts") && !path.endsWith(".test.ts")) {
          for (const match of readFileSync(path, "utf8").matchAll(/\bVERBATIM_[A-Z0-9_]+\b/g)) {
            if (!match[0].startsWith("VERBATIM_INTERNAL_") && match[0] !== "VERBATIM_SETUP_MODELS") mentioned.add(match[0]);
          }
        }
      }
    };
    walk(join(ROOT, "src"));
    expect(mentioned.size).toBeGreaterThanOrEqual(4);
    for (const name of mentioned) expect(stdout).toContain(`env ${name}`);
  });

  test("no command prints the help and exits 0; --version prints the version", async () => {
    const bare = await runCli([]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain("serve");
    const version = await runCli(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("an unknown command exits 2 with a message", async () => {
    for (const words of [["frobnicate"], ["admin", "frobnicate"], ["admin", "user", "frobnicate"]]) {
      const result = await runCli(words);
      expect(result.code).toBe(2);
      expect(result.stderr + result.stdout).toMatch(/unknown command|Usage/);
    }
    const top = await runCli(["frobnicate"]);
    expect(top.stderr).toContain("unknown command: frobnicate");
  });

  test("the admin help lists user delete; without --email it exits 2", async () => {
    const help = await runCli(["admin", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/user delete\s+Delete a user \(an account\) and everything of it, for good/);
    const usage = await runCli(["admin", "user", "delete", "--help"]);
    expect(usage.stdout).toContain("verbatim admin user delete --email E [--yes] [--json]");
    expect(usage.stdout).toContain("--yes");
    const missing = await runCli(["admin", "user", "delete"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--email");
  }, 30_000);

  test("a group without its subcommand exits 2", async () => {
    expect((await runCli(["admin"])).code).toBe(2);
    expect((await runCli(["admin", "key"])).code).toBe(2);
  });

  test("an unknown option exits 2 with a message", async () => {
    const admin = await server.admin("user", "list", "--bogus");
    expect(admin.code).toBe(2);
    expect(admin.stderr).toContain("unknown option: --bogus");
    const serve = await runCli(["serve", "--no-such-flag", "--port", "0"]);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain("unknown option: --no-such-flag");
    const stray = await server.admin("user", "list", "extra");
    expect(stray.code).toBe(2);
  });

  test("a bad value exits 2 before the server starts, from a flag or from the environment", async () => {
    const port = await runCli(["serve", "--port", "abc"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("--port must be a whole number");
    const envPort = await runWithEnv(["serve"], { VERBATIM_PORT: "99999" });
    expect(envPort.code).toBe(2);
    expect(envPort.stderr).toContain("--port must be 0 to 65535");
    const limits = await runWithEnv(["serve", "--port", "0"], { VERBATIM_RATE_LIMITS: "gold=5" });
    expect(limits.code).toBe(2);
    expect(limits.stderr).toContain("--rate-limits");
  });
});

describe("serve honours environment variables", () => {
  let envServer: TestServer;
  beforeAll(async () => {
    envServer = await startServer({ env: { VERBATIM_RATE_LIMITS: "pro=7", VERBATIM_OAUTH_AUDIENCE: "custom-audience" } });
  });
  afterAll(async () => {
    await envServer?.stop();
  });

  test("VERBATIM_RATE_LIMITS=pro=7 gives the pro admin key a limit of 7", async () => {
    const response = await envServer.api("/api/v1/me", { key: envServer.adminKey });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit")).toBe("7");
    expect(((await response.json()) as any).plan).toBe("pro");
  });

  test("plans left out of VERBATIM_RATE_LIMITS keep their defaults", async () => {
    const user = await envServer.admin("user", "create", "--email", "std@example.com", "--plan", "standard");
    expect(user.code).toBe(0);
    const key = JSON.parse((await envServer.admin("key", "create", "--email", "std@example.com", "--name", "k", "--scopes", "all", "--json")).stdout).key;
    expect((await envServer.api("/api/v1/me", { key })).headers.get("x-ratelimit-limit")).toBe("60");
  });

  test("VERBATIM_OAUTH_AUDIENCE sets the audience tokens must carry", async () => {
    const right = JSON.parse(
      (await envServer.admin("token", "create", "--email", "admin@localhost", "--scopes", "all", "--oauth-audience", "custom-audience", "--json")).stdout,
    ).access_token;
    expect((await envServer.api("/api/v1/me", { key: right })).status).toBe(200);
    const defaultAudience = JSON.parse((await envServer.admin("token", "create", "--email", "admin@localhost", "--scopes", "all", "--json")).stdout).access_token;
    const body = await expectProblem(await envServer.api("/api/v1/me", { key: defaultAudience }), 401, "unauthorized");
    expect(body.detail).toMatch(/audience/i);
  });

  test("a flag beats the environment variable", async () => {
    const flagged = await startServer({ env: { VERBATIM_RATE_LIMITS: "pro=7" }, args: ["--rate-limits", "pro=9"] });
    try {
      expect((await flagged.api("/api/v1/me", { key: flagged.adminKey })).headers.get("x-ratelimit-limit")).toBe("9");
    } finally {
      await flagged.stop();
    }
  });

  test("admin commands read VERBATIM_DATA_DIR (and, on the PostgreSQL run, VERBATIM_DATABASE_URL)", async () => {
    const database: Record<string, string> = envServer.databaseUrl ? { VERBATIM_DATABASE_URL: envServer.databaseUrl } : {};
    const result = await runWithEnv(["admin", "user", "list", "--json"], { VERBATIM_DATA_DIR: envServer.dataDir, ...database });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as any[]).map((u) => u.email)).toContain("std@example.com");
  });
});
