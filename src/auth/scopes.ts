import { z } from "zod";

export const SCOPES = [
  "read:meetings",
  "read:transcripts",
  "read:documents",
  "write:meetings",
  "write:documents",
  "webhooks",
  "read:usage",
] as const;

export type Scope = (typeof SCOPES)[number];

/** The scopes column as stored (a JSON array of scope names), read where drizzle's JSON mode is not in the way (the key lookup's prepared statement). */
const storedScopes = z.array(z.enum(SCOPES));

export function parseStoredScopes(text: string): Scope[] {
  return storedScopes.parse(JSON.parse(text));
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Parses "a,b,c" or "all" (admin CLI) into scopes; unknown names are an error, never dropped. */
export function parseScopeList(text: string): Scope[] {
  if (text.trim() === "all") return [...SCOPES];
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length) throw new Error(`unknown scope(s): ${unknown.join(", ")}; known: ${SCOPES.join(", ")}, or all`);
  if (!names.length) throw new Error("at least one scope is needed");
  return [...new Set(names)] as Scope[];
}
