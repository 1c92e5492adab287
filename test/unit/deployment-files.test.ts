import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/settings/config.js';

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
/** PostgreSQL numbers its releases major.minor (15.18): that is its exact release, never `15` or `latest`. */
const EXACT_POSTGRES_TAG = /^postgres:\d+\.\d+(-[a-z0-9.]+)?$/;

/** A service's `environment:` block as the settings the service reads. */
function environmentOf(block: string): Record<string, string> {
  const body = /\n {4}environment:\n((?: {6}.*\n)+)/.exec(`${block}\n`)![1]!;
  const settings = body.split('\n').filter((line) => /^ {6}[A-Z_]+:/.test(line));
  return Object.fromEntries(settings.map((line) => /^ {6}([A-Z_]+): "?([^"]*)"?$/.exec(line)!.slice(1, 3) as [string, string]));
}

describe('the deployment files', () => {
  it('pin every compose image to an exact version and restart every service unless it was stopped', () => {
    const found = services();
    expect([...found.keys()]).toEqual(['eventstore', 'mongo', 'nats', 'postgres', 'nature-postgres', 'nature']);
    for (const [name, block] of found) {
      const image = /\n {4}image: (\S+)/.exec(block)?.[1];
      if (name === 'postgres') expect(image, name).toMatch(EXACT_POSTGRES_TAG);
      else if (!name.startsWith('nature')) expect(image, name).toMatch(EXACT_TAG);
      expect(block, name).toMatch(/\n {4}restart: unless-stopped\n/);
    }
  });

  it('publish every port on 127.0.0.1 only (the servers run without credentials), and give the service time to stop cleanly', () => {
    const found = services();
    for (const [name, block] of found) {
      const ports = [...block.matchAll(/\n {6}- "([^"]+)"/g)].map((match) => match[1]!);
      expect(ports.length, name).toBeGreaterThan(0);
      for (const port of ports) expect(port, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
    expect(found.get('nature')).toMatch(/\n {4}stop_grace_period: 30s\n/);
    expect(found.get('nature-postgres')).toMatch(/\n {4}stop_grace_period: 30s\n/);
  });

  it('run the service on PostgreSQL under the postgres profile, its password a secret file and in no setting', () => {
    const found = services();
    for (const name of ['postgres', 'nature-postgres']) expect(found.get(name), name).toMatch(/\n {4}profiles: \[postgres\]\n/);
    const settings = environmentOf(found.get('nature-postgres')!);
    const config = loadConfig(settings);
    expect(config.eventStore).toEqual({
      kind: 'postgres',
      url: 'postgres://nature@postgres:5432/nature',
      passwordFile: '/run/secrets/postgres-password',
    });
    expect(config.readModels).toEqual(config.eventStore);
    // The server's entrypoint reads the same secret for the role it makes.
    expect(environmentOf(found.get('postgres')!)).toMatchObject({
      POSTGRES_USER: 'nature',
      POSTGRES_PASSWORD_FILE: '/run/secrets/postgres-password',
    });
    expect(compose).not.toMatch(/POSTGRES_PASSWORD:|postgres:\/\/[^@\s]*:[^@\s]*@/);
    expect(compose).toMatch(/\nsecrets:\n {2}postgres-password:\n {4}file: \.\/postgres-password\.txt\n/);
  });

  it('test against the very server versions compose runs: every testcontainers image is pinned to the compose one', () => {
    const composed = new Set(
      [...services().values()].map((block) => /\n {4}image: (\S+)/.exec(block)?.[1]).filter((image) => image !== undefined),
    );
    const sources = ['../contract/mongodb.test.ts', '../contract/eventstoredb.test.ts', '../e2e/cli.test.ts'].map((path) =>
      readFileSync(new URL(path, import.meta.url), 'utf8'),
    );
    const used = sources.flatMap((source) =>
      [...source.matchAll(/(?:MongoDBContainer|GenericContainer)\('([^']+)'\)/g)].map((match) => match[1]!),
    );
    expect(used.length).toBe(3);
    for (const image of used) expect(composed, image).toContain(image);
  });

  it('build the image on an exact Node release of a supported LTS line, the same in both stages', () => {
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    expect(bases).toHaveLength(2);
    for (const base of bases) expect(base).toMatch(/^node:(22|24)\.\d+\.\d+-bookworm-slim$/);
    expect(new Set(bases).size).toBe(1);
  });
});
