import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';
import { openTestApp } from '../support/test-app.js';

/**
 * test/fixtures/data-v0: written by the service before per-subject encryption (its README lists what is in it),
 * older than the oldest data this version upgrades (data-v1).
 */
const fixture = new URL('../fixtures/data-v0', import.meta.url).pathname;

describe('a data directory older than the oldest supported data version', () => {
  const dir = tempDir();
  afterEach(() => dir.cleanup());

  it('is refused at start, saying which version to start on it first, its log left as it was', async () => {
    cpSync(fixture, dir.path, { recursive: true, filter: (source) => !source.endsWith('.md') });
    const events = join(dir.path, 'sandbox.events.db');
    const before = readFileSync(events);
    await expect(openTestApp({ NATURE_DATA_DIR: dir.path })).rejects.toThrow(
      /was written by a version older than data-v1 \(commit d0662b8\).*start a version of that time on it once, then this one/,
    );
    expect(readFileSync(events).equals(before)).toBe(true);
  });
});
