/**
 * Text shaped like a credential of this service, wherever a caller put it (a path, a query, a header, a body):
 * an API key, an assessment's client secret, a webhook signing secret, an assessment link's token. Its recognisable prefix stays, so a
 * reader still sees what kind of credential was sent.
 */
const SHAPES: [RegExp, string][] = [
  [/\b(test|live)_(pk|sk)_[0-9A-Za-z]{16,}/g, '$1_$2_[redacted]'],
  [/\b(asm_[0-9A-Za-z]+)_secret_[0-9A-Za-z]{16,}/g, '$1_secret_[redacted]'],
  [/\bwhsec_[0-9A-Za-z+/]{16,}={0,2}/g, 'whsec_[redacted]'],
  // An assessment link's token (its URL's last segment): the link's id stays readable.
  [/\b(test|live)_(lnk_[0-9A-Z]{26})_[0-9A-Za-z]{16,}/g, '$1_$2_[redacted]'],
];

/** What every shape holds: text without it (most log messages and paths) is returned without running each shape. */
const ANY_SHAPE = /_(pk|sk)_|_secret_|whsec_|_lnk_/;

export function redactSecrets(text: string): string {
  if (!ANY_SHAPE.test(text)) return text;
  return SHAPES.reduce((redacted, [shape, replacement]) => redacted.replace(shape, replacement), text);
}

/**
 * The value with every string in it redacted, in arrays and plain objects at any depth; other values as they are
 * (an instance of a class, such as a request or an error, is left whole for its serializer).
 */
export function redactSecretsIn<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactSecretsIn(item)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, member]) => [redactSecrets(name), redactSecretsIn(member)])) as T;
}
