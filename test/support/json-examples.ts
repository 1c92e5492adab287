import { expect } from 'vitest';

/** A JSON value's shape: an object by its keys (recursively), an array by its items' shapes, anything else by its type. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return [...new Set(value.map((item) => JSON.stringify(shapeOf(item))))].map((shape) => JSON.parse(shape));
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shapeOf(item)]));
  return typeof value;
}

const ELLIPSIS = '…';

/**
 * Checks a real answer against a guide's example of it, value by value: a string with `…` in it stands for any text
 * there ("req_…"), and an object with a `…` member for one with more members than those shown; everything else is
 * as shown.
 */
export function expectLikeExample(actual: unknown, example: unknown, at = '$'): void {
  if (typeof example === 'string' && example.includes(ELLIPSIS)) {
    const pattern = example
      .split(ELLIPSIS)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]+');
    expect(actual, at).toEqual(expect.stringMatching(new RegExp(`^${pattern}$`)));
  } else if (Array.isArray(example)) {
    expect(Array.isArray(actual) && actual.length, at).toBe(example.length);
    for (const [index, item] of example.entries()) expectLikeExample((actual as unknown[])[index], item, `${at}[${index}]`);
  } else if (typeof example === 'object' && example !== null) {
    expect(typeof actual === 'object' && actual !== null && !Array.isArray(actual), at).toBe(true);
    const shown = Object.keys(example).filter((key) => key !== ELLIPSIS);
    const real = Object.keys(actual as object);
    if (ELLIPSIS in example) expect(real, at).toEqual(expect.arrayContaining(shown));
    else expect(real.sort(), at).toEqual(shown.sort());
    for (const key of shown) {
      expectLikeExample((actual as Record<string, unknown>)[key], (example as Record<string, unknown>)[key], `${at}.${key}`);
    }
  } else {
    expect(actual, at).toEqual(example);
  }
}
