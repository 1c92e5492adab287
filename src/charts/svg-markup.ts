/** SVG written as text: escaped, with attributes in the order given and numbers rounded, so the same chart is the same bytes. */

type AttributeValue = string | number | undefined;
export type Attributes = Readonly<Record<string, AttributeValue>>;

/** Text made safe for XML or HTML content and for attribute values in double quotes (the chart's, the guides', the dashboard's). */
export function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** Coordinates to the hundredth of a px: enough for a screen, and no float noise (0.30000000000000004) in the bytes. */
const formatNumber = (value: number) => String(Math.round(value * 100) / 100);

function attributesOf(attributes: Attributes): string {
  return Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${typeof value === 'number' ? formatNumber(value) : escapeXml(value)}"`)
    .join('');
}

/** An element holding other elements (already markup), one per line. */
export function element(name: string, attributes: Attributes, children: readonly string[] = []): string {
  if (children.length === 0) return `<${name}${attributesOf(attributes)}/>`;
  return `<${name}${attributesOf(attributes)}>\n${children.join('\n')}\n</${name}>`;
}

/** An element holding text only (a <text>, <title> or <desc>), escaped. */
export function textElement(name: string, attributes: Attributes, text: string): string {
  return `<${name}${attributesOf(attributes)}>${escapeXml(text)}</${name}>`;
}
