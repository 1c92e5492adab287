/**
 * JSON text as the fuzz suite writes it: from a tree that can hold what JSON.stringify cannot write,
 * namely duplicate keys, `__proto__` as a plain key, and raw bytes (invalid UTF-8, broken syntax).
 */
export type JsonNode =
  | { t: 'obj'; entries: [string, JsonNode][] }
  | { t: 'arr'; items: JsonNode[] }
  | { t: 'val'; value: string | number | boolean | null }
  /** Written as they are, in place of a value. */
  | { t: 'raw'; bytes: Buffer };

export type JsonPath = (string | number)[];

export function toNode(value: unknown): JsonNode {
  if (Array.isArray(value)) return { t: 'arr', items: value.map(toNode) };
  if (value !== null && typeof value === 'object') {
    if ('t' in value && ['obj', 'arr', 'val', 'raw'].includes((value as JsonNode).t)) return value as JsonNode;
    return { t: 'obj', entries: Object.entries(value).map(([key, item]) => [key, toNode(item)]) };
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) return { t: 'val', value };
  throw new Error(`not JSON: ${String(value)}`);
}

export const raw = (bytes: Buffer | string): JsonNode => ({
  t: 'raw',
  bytes: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'latin1'),
});

/** A string value holding raw bytes between its quotes (invalid UTF-8, say). */
export const rawString = (before: string, bytes: Buffer, after = ''): JsonNode =>
  raw(
    Buffer.concat([Buffer.from(JSON.stringify(before).slice(0, -1), 'utf8'), bytes, Buffer.from(JSON.stringify(after).slice(1), 'utf8')]),
  );

function clone(node: JsonNode): JsonNode {
  switch (node.t) {
    case 'obj':
      return { t: 'obj', entries: node.entries.map(([key, item]) => [key, clone(item)]) };
    case 'arr':
      return { t: 'arr', items: node.items.map(clone) };
    default:
      return node;
  }
}

/** The node at `path`, or undefined. Objects resolve a key to its last entry, as JSON.parse does. */
export function nodeAt(node: JsonNode, path: JsonPath): JsonNode | undefined {
  let at: JsonNode | undefined = node;
  for (const step of path) {
    if (at?.t === 'obj') at = at.entries.findLast(([key]) => key === step)?.[1];
    else if (at?.t === 'arr' && typeof step === 'number') at = at.items[step];
    else return undefined;
  }
  return at;
}

export type Edit =
  | { op: 'set'; path: JsonPath; value: JsonNode }
  | { op: 'delete'; path: JsonPath }
  /** Adds an entry to the object at `path`, even a key it already has (a duplicate, written after). */
  | { op: 'add'; path: JsonPath; key: string; value: JsonNode };

/** A copy of `root` with the edit applied; an edit whose parent is missing changes nothing. */
export function applyEdit(root: JsonNode, edit: Edit): JsonNode {
  const copy = clone(root);
  if (edit.path.length === 0) {
    if (edit.op === 'set') return edit.value;
    if (edit.op === 'delete') return raw('');
  }
  const parentPath = edit.op === 'add' ? edit.path : edit.path.slice(0, -1);
  const parent = nodeAt(copy, parentPath);
  const last = edit.path.at(-1);
  if (edit.op === 'add') {
    if (parent?.t === 'obj') parent.entries.push([edit.key, edit.value]);
    return copy;
  }
  if (parent?.t === 'obj') {
    const index = parent.entries.findLastIndex(([key]) => key === last);
    if (edit.op === 'delete') parent.entries = parent.entries.filter(([key]) => key !== last);
    else if (index >= 0) parent.entries[index] = [String(last), edit.value];
    else parent.entries.push([String(last), edit.value]);
  } else if (parent?.t === 'arr' && typeof last === 'number') {
    if (edit.op === 'delete') parent.items.splice(last, 1);
    else parent.items[last] = edit.value;
  }
  return copy;
}

/** The JSON text, UTF-8; JSON.stringify writes each string (so a lone surrogate becomes its \u escape). */
export function serialize(node: JsonNode): Buffer {
  const parts: Buffer[] = [];
  const write = (n: JsonNode) => {
    switch (n.t) {
      case 'val':
        parts.push(Buffer.from(JSON.stringify(n.value), 'utf8'));
        return;
      case 'raw':
        parts.push(n.bytes);
        return;
      case 'arr':
        parts.push(Buffer.from('['));
        n.items.forEach((item, i) => {
          if (i > 0) parts.push(Buffer.from(','));
          write(item);
        });
        parts.push(Buffer.from(']'));
        return;
      case 'obj':
        parts.push(Buffer.from('{'));
        n.entries.forEach(([key, item], i) => {
          if (i > 0) parts.push(Buffer.from(','));
          parts.push(Buffer.from(`${JSON.stringify(key)}:`, 'utf8'));
          write(item);
        });
        parts.push(Buffer.from('}'));
    }
  };
  write(node);
  return Buffer.concat(parts);
}

/** A value nested `depth` levels deep, as text (arrays `[[…]]` or objects `{"a":{…}}`). */
export function deeplyNested(depth: number, kind: 'array' | 'object'): JsonNode {
  return kind === 'array' ? raw('['.repeat(depth) + ']'.repeat(depth)) : raw(`${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`);
}
