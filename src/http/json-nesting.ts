import { endOfString } from './duplicate-members.js';

/**
 * How deep a request's JSON may nest arrays and objects. RFC 8259 §9 lets a parser set the limit; the API's own
 * bodies need five levels (an MCP tool call's responses), and every walk after parsing (validation, the MCP SDK's
 * re-serialisation) recurses, so a body of nothing but brackets (64 KiB of them) would overflow the stack.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether a JSON text JSON.parse accepted nests deeper than `max`; counted without recursion, stopping at the first level too deep. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') at = endOfString(text, at);
    else if (char === '[' || char === '{') {
      depth += 1;
      if (depth > max) return true;
    } else if (char === ']' || char === '}') depth -= 1;
  }
  return false;
}
