/**
 * A strict reader of the XML the chart writes: elements, attributes in double or single quotes, text and the
 * five predefined entities or character references. It throws on anything not well-formed (a tag left open or
 * closed out of order, an attribute twice, a bare `<` or `&`, text outside the root) and on constructs the chart
 * never writes (comments, CDATA, a doctype), so a change that needs them is noticed. No regular expression
 * decides well-formedness: it reads character by character.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: (XmlElement | string)[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const isNameStart = (char: string) => (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char === '_' || char === ':';
const isNameChar = (char: string) => isNameStart(char) || (char >= '0' && char <= '9') || char === '-' || char === '.';
const isSpace = (char: string) => char === ' ' || char === '\n' || char === '\t' || char === '\r';

export function parseXml(source: string): XmlElement {
  let at = 0;
  const fail: (what: string) => never = (what) => {
    throw new Error(`not well-formed XML at ${at}: ${what} (…${source.slice(Math.max(0, at - 40), at + 40)}…)`);
  };
  const skipSpace = () => {
    while (at < source.length && isSpace(source[at]!)) at++;
  };
  const name = () => {
    const start = at;
    if (!isNameStart(source[at] ?? '')) fail('a name expected');
    while (at < source.length && isNameChar(source[at]!)) at++;
    return source.slice(start, at);
  };
  /** Character data up to `end` (exclusive), its references resolved; a `<` in it is an error. */
  const decode = (end: number) => {
    let text = '';
    while (at < end) {
      const char = source[at]!;
      if (char === '<') fail('a bare <');
      if (char !== '&') {
        text += char;
        at++;
        continue;
      }
      const semicolon = source.indexOf(';', at);
      if (semicolon === -1 || semicolon > end) fail('a bare &');
      const reference = source.slice(at + 1, semicolon);
      const code = reference.startsWith('#x')
        ? Number.parseInt(reference.slice(2), 16)
        : reference.startsWith('#')
          ? Number.parseInt(reference.slice(1), 10)
          : undefined;
      const resolved = code === undefined ? ENTITIES[reference] : Number.isNaN(code) ? undefined : String.fromCodePoint(code);
      if (resolved === undefined) fail(`an unknown reference &${reference};`);
      text += resolved;
      at = semicolon + 1;
    }
    return text;
  };

  const element = (): XmlElement => {
    if (source[at] !== '<') fail('< expected');
    at++;
    const node: XmlElement = { name: name(), attributes: {}, children: [] };
    for (;;) {
      const spaced = isSpace(source[at] ?? '');
      skipSpace();
      if (source.startsWith('/>', at)) {
        at += 2;
        return node;
      }
      if (source[at] === '>') {
        at++;
        break;
      }
      if (!spaced) fail('a space expected before an attribute');
      const attribute = name();
      if (attribute in node.attributes) fail(`attribute ${attribute} given twice`);
      skipSpace();
      if (source[at] !== '=') fail('= expected');
      at++;
      skipSpace();
      const quote = source[at];
      if (quote !== '"' && quote !== "'") fail('a quoted value expected');
      at++;
      const end = source.indexOf(quote, at);
      if (end === -1) fail('an unterminated attribute value');
      node.attributes[attribute] = decode(end);
      at = end + 1;
    }
    for (;;) {
      if (at >= source.length) fail(`<${node.name}> is never closed`);
      if (source.startsWith('</', at)) {
        at += 2;
        const closing = name();
        if (closing !== node.name) fail(`</${closing}> closes <${node.name}>`);
        skipSpace();
        if (source[at] !== '>') fail('> expected');
        at++;
        return node;
      }
      if (source.startsWith('<!', at) || source.startsWith('<?', at))
        fail('a comment, CDATA, doctype or instruction, which the chart never writes');
      if (source[at] === '<') {
        node.children.push(element());
        continue;
      }
      const next = source.indexOf('<', at);
      node.children.push(decode(next === -1 ? source.length : next));
    }
  };

  skipSpace();
  const root = element();
  skipSpace();
  if (at !== source.length) fail('content after the root element');
  return root;
}

/** Every element of the tree, depth first, in document order. */
export function allElements(root: XmlElement): XmlElement[] {
  return [root, ...root.children.flatMap((child) => (typeof child === 'string' ? [] : allElements(child)))];
}

/** The text of an element and its descendants. */
export function textOf(element: XmlElement): string {
  return element.children.map((child) => (typeof child === 'string' ? child : textOf(child))).join('');
}
