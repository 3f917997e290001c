/**
 * How deep the arrays and objects of a JSON text nest, read without parsing: a scan that counts
 * brackets outside strings. Parsing and then validating a document nested 60,000 levels deep
 * recurses that deep (JSON.stringify, schema validation) and overflows the stack; checking the
 * text first turns that into a plain validation error.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/** Nesting allowed in any JSON the service reads from a client: far beyond any real request. */
export const MAX_JSON_DEPTH = 32;
