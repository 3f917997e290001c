// docker/compose.postgres.yml (issue 22): Docker cannot run here, so the file is read with the yaml
// package and checked for what the example promises: PostgreSQL 15, two API nodes behind a
// round-robin proxy that passes the client's address, one GPU worker, a storage volume every
// Verbatim node mounts, secrets from the environment; and each node's command line and
// environment pass the service's own option parsing and configuration checks.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { serveCommand } from "../../src/cli/serve.ts";
import { parseOptions } from "../../src/cli/options.ts";
import { serviceConfig } from "../../src/config.ts";
import { ROOT } from "../helpers/server.ts";

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  deploy?: { resources: { reservations: { devices: Array<{ driver: string; count: string; capabilities: string[] }> } } };
  networks?: Record<string, { ipv4_address?: string }> | string[];
  ports?: string[];
  healthcheck?: { disable?: boolean };
  depends_on?: unknown;
}

const text = readFileSync(join(ROOT, "docker/compose.postgres.yml"), "utf8");
// Merge keys (<<) resolved, as docker compose does.
const compose = parse(text, { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const nginx = readFileSync(join(ROOT, "docker/nginx.conf"), "utf8");
const { services } = compose;
const NODES = ["api1", "api2", "worker"] as const;

/** What compose would pass: ${VAR:-default} and ${VAR:?message} filled from `env`. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::[-?]([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => env[name] ?? fallback ?? "");
}

test("PostgreSQL 15, its password from the environment, ready before the nodes start", () => {
  expect(services.postgres!.image).toMatch(/^postgres:15(\.|-|$)/);
  expect(services.postgres!.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  for (const name of NODES) expect(services[name]!.depends_on).toMatchObject({ postgres: { condition: "service_healthy" } });
});

test("every Verbatim node runs the Dockerfile.cuda image, mounts the shared storage volume and reads the database URL from the environment", () => {
  for (const name of NODES) {
    const node = services[name]!;
    expect(node.build).toEqual({ context: "..", dockerfile: "Dockerfile.cuda" });
    expect(node.image).toBe("verbatim:cuda");
    expect(node.volumes).toContain("storage:/storage");
    expect(node.environment!.VERBATIM_STORAGE_DIR).toBe("/storage");
    // No password written in the file: it comes from POSTGRES_PASSWORD (docker/.env).
    expect(node.environment!.VERBATIM_DATABASE_URL).toBe("postgres://verbatim:${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in docker/.env}@postgres:5432/verbatim");
    // Each node has a data dir of its own.
    expect(node.volumes!.filter((v) => v.endsWith(":/data"))).toEqual([`${name}-data:/data`]);
  }
  expect(compose.volumes).toHaveProperty("storage");
});

test("two API nodes and one worker: each command line and environment is one the service accepts", () => {
  const roles = NODES.map((name) => {
    const node = services[name]!;
    expect(node.command![0]).toBe("serve");
    const env = Object.fromEntries(Object.entries(node.environment!).map(([k, v]) => [k, interpolate(v, { POSTGRES_PASSWORD: "pw0123456789" })]));
    const config = serviceConfig(parseOptions(node.command!.slice(1), serveCommand.options, { ...env, VERBATIM_DATA_DIR: "/data" }));
    expect(config.database?.url).toBe("postgres://verbatim:pw0123456789@postgres:5432/verbatim");
    expect(config.storageDir).toBe("/storage");
    return config.role;
  });
  expect(roles).toEqual(["api", "api", "worker"]);
});

test("the worker reserves every GPU (docker run --gpus all) and skips the image's HTTP health check; it never listens", () => {
  const worker = services.worker!;
  expect(worker.deploy!.resources.reservations.devices).toEqual([{ driver: "nvidia", count: "all", capabilities: ["gpu"] }]);
  expect(worker.healthcheck).toEqual({ disable: true });
  for (const name of ["api1", "api2"]) expect(services[name]!.deploy).toBeUndefined();
});

test("the proxy is nginx, round-robin over both API nodes, and the API nodes believe its X-Forwarded-For only", () => {
  const proxy = services.proxy!;
  expect(proxy.image).toMatch(/^nginx:/);
  expect(proxy.volumes).toContain("./nginx.conf:/etc/nginx/nginx.conf:ro");
  const address = (proxy.networks as Record<string, { ipv4_address: string }>).verbatim!.ipv4_address;
  for (const name of ["api1", "api2"]) expect(services[name]!.environment!.VERBATIM_TRUSTED_PROXY).toBe(address);
  const upstream = /upstream verbatim_api \{([^}]*)\}/.exec(nginx)![1]!;
  // Plain server lines: nginx's default balancing is round-robin (no ip_hash, no hash, no least_conn).
  expect(upstream.trim().split(/\s*\n\s*/)).toEqual(["server api1:8080;", "server api2:8080;"]);
  expect(nginx).toContain("proxy_pass http://verbatim_api;");
  expect(nginx).toContain("proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;");
  expect(proxy.ports).toEqual(["8080:8080"]);
  expect(nginx).toMatch(/listen 8080;/);
});
