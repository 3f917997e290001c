import { z } from "zod";
import { ENTITY_KINDS, type EntityKind, type RedactionRequest, type RedactionSummary } from "../redaction/types.ts";
import { redactionSchema } from "../transcripts/schema.ts";

/*
 * A meeting's personal-data redaction (issue 23, item 1), as the API and the web app ask for it
 * and show it. What to find and replace is src/redaction/'s; this file is the request's wire shape,
 * its resolution against the account's default, and the meeting object's `redaction` field.
 */

/** What a meeting keeps of its request (meetings.redaction): the worker's RedactionRequest as it was at creation. */
export type MeetingRedaction = RedactionRequest;
/** What the redact step did (meetings.redaction_applied). */
export type RedactionApplied = RedactionSummary;

/** Longest case/file number pattern an account may set: a pattern runs over every word of every meeting. */
export const MAX_CASE_NUMBER_PATTERN = 120;

const entityList = z
  .array(z.string().trim().max(40))
  .min(1, "Name at least one entity kind, or send false.")
  .max(40)
  .superRefine((kinds, ctx) => {
    const unknown = [...new Set(kinds.filter((kind) => !(ENTITY_KINDS as readonly string[]).includes(kind)))];
    if (unknown.length) {
      ctx.addIssue({
        code: "custom",
        message: `Unknown entity kind${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}. Known: ${ENTITY_KINDS.join(", ")}.`,
        params: { code: "unknown_entity_kind" },
      });
    }
  })
  .transform((kinds) => ENTITY_KINDS.filter((kind) => kinds.includes(kind)));

/**
 * redact_pii at POST /v1/meetings: `true` (every kind, text only), `false` (none, whatever the
 * account's default), or `{ entities, audio }` (entities default to every kind).
 */
export const redactPiiInput = z.union(
  [
    z.boolean(),
    z.strictObject({
      entities: entityList.optional().meta({ description: `Entity kinds to redact; all when left out: ${ENTITY_KINDS.join(", ")}` }),
      audio: z.boolean().default(false).meta({ description: "Also silence each redacted word in the stored recording (replaced by a FLAC copy)" }),
    }),
  ],
  { error: "Send true, false, or an object { entities, audio }." },
);

export type RedactPiiInput = z.output<typeof redactPiiInput>;

/**
 * Whether a case/file number pattern is one an account may set: a regular expression (Unicode
 * mode) of bounded length that cannot match an empty string, with no back-reference, lookaround or
 * quantified group holding a quantifier (the shapes that make a pattern backtrack without end).
 */
export function casePatternProblem(pattern: string): string | null {
  if ([...pattern].length > MAX_CASE_NUMBER_PATTERN) return `At most ${MAX_CASE_NUMBER_PATTERN} characters.`;
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, "u");
  } catch {
    return "Not a valid regular expression.";
  }
  if (compiled.test("")) return "The pattern matches an empty string.";
  if (/\\[1-9k]|\(\?<?[=!]/.test(pattern)) return "Back-references and lookarounds are not accepted.";
  if (/\([^()]*[+*}][^()]*\)\s*[+*{]/.test(pattern)) return "A repeated group may not itself hold a repetition (it can make matching take forever).";
  return null;
}

export const casePatternInput = z
  .string()
  .trim()
  .min(1)
  .superRefine((pattern, ctx) => {
    const problem = casePatternProblem(pattern);
    if (problem) ctx.addIssue({ code: "custom", message: problem, params: { code: "invalid_pattern" } });
  });

/** An account's redaction default, as stored and shown. */
export interface RedactionDefaults {
  enabled: boolean;
  entities: EntityKind[];
  audio: boolean;
  caseNumberPattern: string | null;
}

export const NO_DEFAULTS: RedactionDefaults = { enabled: false, entities: [...ENTITY_KINDS], audio: false, caseNumberPattern: null };

/** GET/PUT /v1/redaction's body and answer. */
export const redactionSettingsInput = z.strictObject({
  enabled: z.boolean().meta({ description: "Redact every new meeting that does not say (redact_pii)" }),
  entities: entityList.optional().meta({ description: "Entity kinds the default redacts; all when left out" }),
  audio: z.boolean().default(false),
  case_number_pattern: casePatternInput.nullable().default(null).meta({ description: "The account's case/file numbers, a regular expression (at most 120 characters)" }),
});

export type RedactionSettingsInput = z.output<typeof redactionSettingsInput>;

export const redactionSettingsSchema = z.object({
  object: z.literal("redaction_settings"),
  enabled: z.boolean(),
  entities: z.array(z.enum(ENTITY_KINDS)),
  audio: z.boolean(),
  case_number_pattern: z.string().nullable(),
});

export function renderRedactionDefaults(defaults: RedactionDefaults): z.output<typeof redactionSettingsSchema> {
  return { object: "redaction_settings", enabled: defaults.enabled, entities: defaults.entities, audio: defaults.audio, case_number_pattern: defaults.caseNumberPattern };
}

/**
 * The redaction a new meeting gets: what it asked for, else the account's default when enabled;
 * null for none. The account's case pattern goes with it, as it is now.
 */
export function resolveRedaction(asked: RedactPiiInput | undefined, defaults: RedactionDefaults): MeetingRedaction | null {
  const pattern = defaults.caseNumberPattern;
  if (asked === false) return null;
  if (asked === true) return { entities: [...ENTITY_KINDS], audio: false, caseNumberPattern: pattern };
  if (asked !== undefined) return { entities: asked.entities ?? [...ENTITY_KINDS], audio: asked.audio, caseNumberPattern: pattern };
  return defaults.enabled ? { entities: defaults.entities, audio: defaults.audio, caseNumberPattern: pattern } : null;
}

export { redactionSchema };

export type RenderedRedaction = z.output<typeof redactionSchema>;

export function renderRedaction(requested: MeetingRedaction | null, applied: RedactionApplied | null): RenderedRedaction {
  if (!requested) return null;
  return {
    applied: applied !== null,
    requested: requested.entities,
    entities: applied?.entities ?? {},
    audio: applied ? applied.audio : requested.audio,
  };
}
