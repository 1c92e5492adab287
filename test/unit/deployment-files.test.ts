import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const compose = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');
const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');

/** The compose file's services, each with the text of its block (two-space indented keys under `services:`). */
function services(): Map<string, string> {
  const body = compose.slice(compose.indexOf('\nservices:\n'), compose.indexOf('\nvolumes:\n'));
  const blocks = new Map<string, string>();
  for (const block of body.split(/\n(?= {2}[a-z][\w-]*:\n)/).slice(1)) {
    blocks.set(/^ {2}([\w-]+):/.exec(block)![1]!, block);
  }
  return blocks;
}

/** An exact release: a tag with major.minor.patch, never `latest`, `7` or `2.10-alpine`. */
const EXACT_TAG = /:\d+\.\d+\.\d+(-[a-z0-9.]+)?$/;

describe('the deployment files', () => {
  it('pin every compose image to an exact version and restart every service unless it was stopped', () => {
    const found = services();
    expect([...found.keys()]).toEqual(['eventstore', 'mongo', 'nats', 'nature']);
    for (const [name, block] of found) {
      const image = /\n {4}image: (\S+)/.exec(block)?.[1];
      if (name !== 'nature') expect(image, name).toMatch(EXACT_TAG);
      expect(block, name).toMatch(/\n {4}restart: unless-stopped\n/);
    }
  });

  it('build the image on an exact Node release of a supported LTS line, the same in both stages', () => {
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    expect(bases).toHaveLength(2);
    for (const base of bases) expect(base).toMatch(/^node:(22|24)\.\d+\.\d+-bookworm-slim$/);
    expect(new Set(bases).size).toBe(1);
  });
});
