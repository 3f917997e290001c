import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose";
import { chmodSync, copyFileSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";

export const SIGNING_ALGORITHM = "ES256";

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

/** The key file as written above: an EC private key in JWK form, with its id. */
const storedKey = z.looseObject({ kty: z.string(), crv: z.string(), x: z.string(), y: z.string(), d: z.string(), kid: z.string(), alg: z.string().optional() });

export function signingKeyPath(dir: string): string {
  return join(dir, "oauth", "signing-key.jwk.json");
}

/**
 * The folder that holds the token-signing key. On SQLite, the data dir, as always. On PostgreSQL
 * (`shared`), the storage dir every node mounts: each API node has a data dir of its own, and a token
 * minted by one of them or by `admin token create` must verify on all (docs/decisions.md). A key
 * the data dir already holds and the storage dir does not is copied there once (never over one
 * already there), so the tokens it signed stay valid.
 */
export function signingKeyDirOf(place: { dataDir: string; storageDir: string; shared: boolean }): string {
  if (!place.shared || place.storageDir === place.dataDir) return place.dataDir;
  const own = signingKeyPath(place.dataDir);
  const shared = signingKeyPath(place.storageDir);
  if (!existsSync(shared) && existsSync(own)) {
    mkdirSync(dirname(shared), { recursive: true, mode: 0o700 });
    try {
      copyFileSync(own, shared, constants.COPYFILE_EXCL);
      chmodSync(shared, 0o600);
    } catch (error) {
      // Another node adopted its key first: that one is the cluster's.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return place.storageDir;
}

/**
 * The service's own token-signing key, made once in its folder (signingKeyDirOf) and kept there (mode 0600), so
 * tokens minted by `admin token create` stay valid across restarts and across CLI and server.
 */
export async function loadOrCreateSigningKey(dir: string): Promise<SigningKey> {
  const path = signingKeyPath(dir);
  if (!existsSync(path)) {
    const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
    const jwk = await exportJWK(privateKey);
    jwk.kid = crypto.randomUUID();
    jwk.alg = SIGNING_ALGORITHM;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // "wx": two processes starting together must not overwrite each other's key.
    try {
      writeFileSync(path, JSON.stringify(jwk), { flag: "wx", mode: 0o600 });
      chmodSync(path, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const jwk = storedKey.parse(JSON.parse(readFileSync(path, "utf8")));
  const { d: _private, ...publicJwk } = jwk;
  return {
    kid: jwk.kid,
    privateKey: (await importJWK(jwk, SIGNING_ALGORITHM)) as CryptoKey,
    publicKey: (await importJWK(publicJwk, SIGNING_ALGORITHM)) as CryptoKey,
    publicJwk: { ...publicJwk, use: "sig" },
  };
}
