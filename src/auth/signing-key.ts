import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

export function signingKeyPath(dataDir: string): string {
  return join(dataDir, "oauth", "signing-key.jwk.json");
}

/**
 * The service's own token-signing key, made once per data dir and kept there (mode 0600), so
 * tokens minted by `admin token create` stay valid across restarts and across CLI and server.
 */
export async function loadOrCreateSigningKey(dataDir: string): Promise<SigningKey> {
  const path = signingKeyPath(dataDir);
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
