import { type AnyNode, parse } from '@humanwhocodes/momoa';
import { jsonPointer } from './json-pointer.js';

/**
 * Where a JSON text names one member twice in an object (the JSON Pointer of the member), if it does. JSON.parse
 * keeps the last one silently, another parser may keep the first: a body read two ways is refused instead.
 */
export function duplicateMember(text: string): string | undefined {
  return search(parse(text, { mode: 'json' }).body, []);
}

function search(node: AnyNode, path: string[]): string | undefined {
  if (node.type === 'Array') {
    for (const [index, element] of node.elements.entries()) {
      const found = search(element.value, [...path, String(index)]);
      if (found !== undefined) return found;
    }
  }
  if (node.type === 'Object') {
    const names = new Set<string>();
    for (const member of node.members) {
      const name = member.name.type === 'String' ? member.name.value : member.name.name;
      if (names.has(name)) return jsonPointer([...path, name]);
      names.add(name);
      const found = search(member.value, [...path, name]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
