import { jsonPointer } from './json-pointer.js';

type Frame = { kind: 'object'; names: Set<string>; member: string | undefined } | { kind: 'array'; index: number };

/**
 * Where a JSON text names one member twice in an object (the JSON Pointer of the member), if it does. JSON.parse
 * keeps the last one silently, another parser may keep the first: a body read two ways is refused instead. Takes
 * text JSON.parse has accepted, and walks it without recursion, so no nesting depth overflows the stack.
 */
export function duplicateMember(text: string): string | undefined {
  const stack: Frame[] = [];
  let expectName = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      const end = endOfString(text, at);
      const frame = stack.at(-1);
      if (expectName && frame?.kind === 'object') {
        const name = JSON.parse(text.slice(at, end + 1)) as string;
        if (frame.names.has(name)) return jsonPointer([...pathTo(stack.slice(0, -1)), name]);
        frame.names.add(name);
        frame.member = name;
        expectName = false;
      }
      at = end;
    } else if (char === '{') {
      stack.push({ kind: 'object', names: new Set(), member: undefined });
      expectName = true;
    } else if (char === '[') {
      stack.push({ kind: 'array', index: 0 });
    } else if (char === '}' || char === ']') {
      stack.pop();
    } else if (char === ',') {
      const frame = stack.at(-1);
      if (frame?.kind === 'object') expectName = true;
      else if (frame !== undefined) frame.index += 1;
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opening at `start`. */
export function endOfString(text: string, start: number): number {
  for (let at = start + 1; ; at++) {
    if (text[at] === '\\') at += 1;
    else if (text[at] === '"') return at;
  }
}

function pathTo(frames: Frame[]): string[] {
  return frames.map((frame) => (frame.kind === 'object' ? frame.member! : String(frame.index)));
}
