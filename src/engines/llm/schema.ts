/**
 * The JSON schema of the structured report: written once here, used for the generation grammar
 * (node-llama-cpp's createGrammarForJsonSchema) and for checking results (validateReport).
 *
 * Every string has a maxLength and every list a maxItems, so the worst-case output is bounded;
 * the bounds shrink with the output token budget (limitsForOutputTokens) so that a grammar-valid
 * answer always fits in the tokens reserved for it.
 */
import type { StructuredReport } from "../types.ts";

export interface ReportLimits {
  title: number;
  summary: number;
  /** Each key takeaway, decision, minute line and action item text. */
  item: number;
  owner: number;
  due: number;
  keyTakeaways: number;
  actionItems: number;
  decisions: number;
  minutes: number;
}

/** The largest report: every result validates against the schema built from these. */
export const DEFAULT_REPORT_LIMITS: Readonly<ReportLimits> = Object.freeze({
  title: 120,
  summary: 700,
  item: 180,
  owner: 60,
  due: 40,
  keyTakeaways: 6,
  actionItems: 10,
  decisions: 6,
  minutes: 12,
});

/** The smallest bounds limitsForOutputTokens goes down to. */
export const MIN_REPORT_LIMITS: Readonly<ReportLimits> = Object.freeze({
  title: 16,
  summary: 40,
  item: 24,
  owner: 12,
  due: 12,
  keyTakeaways: 1,
  actionItems: 1,
  decisions: 1,
  minutes: 1,
});

function stringSchema(maxLength: number) {
  return { type: "string", maxLength } as const;
}

function nullableString(maxLength: number) {
  return { oneOf: [stringSchema(maxLength), { type: "null" }] } as const;
}

function listOf<T>(items: T, maxItems: number) {
  return { type: "array", items, maxItems } as const;
}

/** The report's JSON schema for the given bounds (every property is required, no other property allowed). */
export function reportJsonSchema(limits: ReportLimits = DEFAULT_REPORT_LIMITS) {
  return {
    type: "object",
    properties: {
      title: { type: "string", minLength: 1, maxLength: limits.title },
      summary: stringSchema(limits.summary),
      key_takeaways: listOf(stringSchema(limits.item), limits.keyTakeaways),
      action_items: listOf(
        {
          type: "object",
          properties: {
            text: stringSchema(limits.item),
            owner: nullableString(limits.owner),
            due: nullableString(limits.due),
          },
          required: ["text", "owner", "due"],
          additionalProperties: false,
        } as const,
        limits.actionItems,
      ),
      decisions: listOf(stringSchema(limits.item), limits.decisions),
      minutes: listOf(stringSchema(limits.item), limits.minutes),
    },
    required: ["title", "summary", "key_takeaways", "action_items", "decisions", "minutes"],
    additionalProperties: false,
  } as const;
}

export type ReportJsonSchema = ReturnType<typeof reportJsonSchema>;

/** The contract for every report this engine returns. */
export const REPORT_JSON_SCHEMA: ReportJsonSchema = reportJsonSchema(DEFAULT_REPORT_LIMITS);

// ---------------------------------------------------------------------------------------------
// Checking a value against the schema: the small JSON-schema subset used above.

type SchemaNode = {
  type?: string;
  properties?: Record<string, SchemaNode>;
  required?: readonly string[];
  additionalProperties?: boolean;
  items?: SchemaNode;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  oneOf?: readonly SchemaNode[];
};

function check(value: unknown, node: SchemaNode, path: string, errors: string[]): void {
  if (node.oneOf) {
    const matches = node.oneOf.filter((option) => {
      const sub: string[] = [];
      check(value, option, path, sub);
      return sub.length === 0;
    });
    if (matches.length !== 1) errors.push(`${path}: matches ${matches.length} of the oneOf options`);
    return;
  }
  switch (node.type) {
    case "null":
      if (value !== null) errors.push(`${path}: expected null`);
      return;
    case "string": {
      if (typeof value !== "string") {
        errors.push(`${path}: expected a string`);
        return;
      }
      const length = [...value].length;
      if (node.maxLength !== undefined && length > node.maxLength) errors.push(`${path}: ${length} characters, at most ${node.maxLength}`);
      if (node.minLength !== undefined && length < node.minLength) errors.push(`${path}: ${length} characters, at least ${node.minLength}`);
      return;
    }
    case "array": {
      if (!Array.isArray(value)) {
        errors.push(`${path}: expected an array`);
        return;
      }
      if (node.maxItems !== undefined && value.length > node.maxItems) errors.push(`${path}: ${value.length} items, at most ${node.maxItems}`);
      if (node.minItems !== undefined && value.length < node.minItems) errors.push(`${path}: ${value.length} items, at least ${node.minItems}`);
      if (node.items) value.forEach((item, index) => check(item, node.items!, `${path}[${index}]`, errors));
      return;
    }
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        errors.push(`${path}: expected an object`);
        return;
      }
      const record = value as Record<string, unknown>;
      const properties = node.properties ?? {};
      for (const key of node.required ?? []) if (!(key in record)) errors.push(`${path}.${key}: missing`);
      for (const [key, child] of Object.entries(record)) {
        const schema = properties[key];
        if (schema) check(child, schema, `${path}.${key}`, errors);
        else if (node.additionalProperties === false) errors.push(`${path}.${key}: not allowed`);
      }
      return;
    }
    default:
      errors.push(`${path}: unsupported schema type ${String(node.type)}`);
  }
}

/** The ways a value breaks the schema (empty when it is a valid report). */
export function validateReport(value: unknown, schema: ReportJsonSchema = REPORT_JSON_SCHEMA): string[] {
  const errors: string[] = [];
  check(value, schema as unknown as SchemaNode, "$", errors);
  return errors;
}

export function isStructuredReport(value: unknown, schema: ReportJsonSchema = REPORT_JSON_SCHEMA): value is StructuredReport {
  return validateReport(value, schema).length === 0;
}

// ---------------------------------------------------------------------------------------------
// Sizing the bounds to an output token budget.

/**
 * Characters of JSON around the strings: quotes, commas and the grammar's whitespace (a newline and
 * up to 8 spaces) per list item; keys, braces and whitespace of the object and of each action item.
 */
const OVERHEAD_PER_VALUE = 12;
const OVERHEAD_FIXED = 130;
const OVERHEAD_ACTION_ITEM = 3 * 14 + 24;

/** The longest JSON text (in characters) the grammar for these bounds can produce. */
export function worstCaseChars(limits: ReportLimits): number {
  const listItems = limits.keyTakeaways + limits.decisions + limits.minutes;
  const actionItem = limits.item + limits.owner + limits.due + OVERHEAD_ACTION_ITEM;
  return (
    OVERHEAD_FIXED +
    limits.title +
    limits.summary +
    listItems * (limits.item + OVERHEAD_PER_VALUE) +
    limits.actionItems * (actionItem + OVERHEAD_PER_VALUE)
  );
}

/** The defaults with lengths and counts each scaled by √factor, so that the total scales by about `factor`. */
function scaledLimits(factor: number): ReportLimits {
  const root = Math.sqrt(factor);
  const result = {} as ReportLimits;
  for (const key of Object.keys(DEFAULT_REPORT_LIMITS) as (keyof ReportLimits)[]) {
    result[key] = Math.max(MIN_REPORT_LIMITS[key], Math.floor(DEFAULT_REPORT_LIMITS[key] * root));
  }
  return result;
}

/**
 * The largest bounds (at most the defaults) whose worst case fits in `outputTokens`, given how many
 * characters a token holds for this model and language (with 10% to spare). Lengths and counts
 * shrink together. Returns null when even the smallest bounds would not fit.
 */
export function limitsForOutputTokens(outputTokens: number, charsPerToken: number): ReportLimits | null {
  const budgetChars = outputTokens * charsPerToken * 0.9;
  if (worstCaseChars(DEFAULT_REPORT_LIMITS) <= budgetChars) return { ...DEFAULT_REPORT_LIMITS };
  if (worstCaseChars(MIN_REPORT_LIMITS) > budgetChars) return null;
  let low = 0; // fits
  let high = 1; // does not fit
  for (let i = 0; i < 30; i++) {
    const middle = (low + high) / 2;
    if (worstCaseChars(scaledLimits(middle)) <= budgetChars) low = middle;
    else high = middle;
  }
  return scaledLimits(low);
}

/** The fewest output tokens that hold the smallest bounds' worst case. */
export function minimumOutputTokens(charsPerToken: number): number {
  return Math.ceil(worstCaseChars(MIN_REPORT_LIMITS) / (charsPerToken * 0.9));
}
