import { expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import { parseOptions, UsageError } from "./cli/options.ts";
import { SERVE_OPTIONS } from "./config-options.ts";
import { serviceConfig } from "./config.ts";

const config = (argv: string[], env: Record<string, string> = {}) => serviceConfig(parseOptions(argv, SERVE_OPTIONS, env));

test("engine threads: explicit, or the cores shared among the workers", () => {
  const cores = availableParallelism();
  expect(config([]).engineSettings.threads).toBe(cores);
  expect(config(["--workers", "2"]).engineSettings.threads).toBe(Math.max(1, Math.floor(cores / 2)));
  expect(config(["--workers", String(cores * 4)]).engineSettings.threads).toBe(1);
  expect(config(["--threads", "3", "--workers", "8"]).engineSettings.threads).toBe(3);
  expect(config([], { VERBATIM_THREADS: "5" }).engineSettings.threads).toBe(5);
  expect(() => config(["--threads", "-1"])).toThrow(UsageError);
});

test("model names, speaker bounds and engine options reach the engine settings", () => {
  const settings = config([
    "--models-dir", "/srv/models", "--whisper-model", "whisper/ggml-large-v3-turbo.bin", "--vad-model", "none",
    "--min-speakers", "2", "--max-speakers", "6", "--gpu", "off", "--whisper-decoding", '{"beamSize":5}', "--llm-context", "4096",
  ]).engineSettings;
  expect(settings).toMatchObject({
    modelsDir: "/srv/models",
    models: { whisper: "whisper/ggml-large-v3-turbo.bin", vad: null },
    speakers: { min: 2, max: 6 },
    gpu: false,
    whisperDecoding: { beamSize: 5 },
    llmContextSize: 4096,
  });
  expect(config([]).engineSettings.speakers).toEqual({ min: null, max: null });
  expect(() => config(["--min-speakers", "5", "--max-speakers", "2"])).toThrow(UsageError);
  expect(() => config(["--gpu", "cuda"])).toThrow(UsageError);
  expect(() => config(["--whisper-decoding", "[1]"])).toThrow(UsageError);
  expect(() => config(["--diarization-threshold", "0"])).toThrow(UsageError);
});

test("trusted proxies: none by default; addresses and CIDRs of both families from the flag or the environment; the header to read; bad entries stop the start", () => {
  expect(config([]).trustedProxies).toBeNull();
  expect(config([]).signInDelayMs).toBe(60_000);
  const trusted = config(["--trusted-proxy", "127.0.0.1, ::1,10.0.0.0/8,fd00::/8"]).trustedProxies!;
  expect(trusted.header).toBe("x-forwarded-for");
  expect(trusted.networks).toHaveLength(4);
  expect(config([], { VERBATIM_TRUSTED_PROXY: "192.0.2.1", VERBATIM_TRUSTED_PROXY_HEADER: "forwarded" }).trustedProxies).toMatchObject({ header: "forwarded" });
  expect(() => config(["--trusted-proxy", "proxy.internal"])).toThrow(/--trusted-proxy: "proxy.internal" is not an IPv4 or IPv6 address or CIDR/);
  expect(() => config(["--trusted-proxy", "127.0.0.1", "--trusted-proxy-header", "x-real-ip"])).toThrow(UsageError);
  expect(config(["--sign-in-delay", "5"]).signInDelayMs).toBe(5000);
  expect(() => config(["--sign-in-delay", "0"])).toThrow(UsageError);
});

test("the storage dir (--storage-dir, VERBATIM_STORAGE_DIR) is the data dir unless set, so an existing install's files stay where they are", () => {
  expect(config(["--data-dir", "/srv/verbatim"]).storageDir).toBe("/srv/verbatim");
  expect(config(["--data-dir", "/srv/verbatim", "--storage-dir", "/mnt/shared/verbatim"])).toMatchObject({ dataDir: "/srv/verbatim", storageDir: "/mnt/shared/verbatim" });
  expect(config(["--data-dir", "/srv/verbatim"], { VERBATIM_STORAGE_DIR: "/mnt/nfs" }).storageDir).toBe("/mnt/nfs");
});

test("the authorization server's access tokens live an hour, or --token-max-ttl when that is shorter; set above it, the start stops", () => {
  expect(config([]).oauthServer.accessTtlSeconds).toBe(3600);
  expect(config(["--token-max-ttl", "600"]).oauthServer.accessTtlSeconds).toBe(600);
  expect(config(["--oauth-access-ttl", "300", "--token-max-ttl", "600"]).oauthServer.accessTtlSeconds).toBe(300);
  expect(config([], { VERBATIM_OAUTH_ACCESS_TTL: "120" }).oauthServer.accessTtlSeconds).toBe(120);
  expect(() => config(["--oauth-access-ttl", "3600", "--token-max-ttl", "600"])).toThrow(/--oauth-access-ttl must be 60 to 600 seconds/);
  expect(() => config(["--oauth-access-ttl", "30"])).toThrow(UsageError);
});
