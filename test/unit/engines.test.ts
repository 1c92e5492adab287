import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Installed {
  name: string;
  version: string;
  node: string | undefined;
}

/** Every package installed under `dir`/node_modules, nested ones included (the workspaces' links are this repository's own). */
function installedPackages(dir: string): Installed[] {
  const modules = join(dir, 'node_modules');
  if (!existsSync(modules)) return [];
  const found: Installed[] = [];
  const visit = (path: string) => {
    if (lstatSync(path).isSymbolicLink() || !existsSync(join(path, 'package.json'))) return;
    const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
    found.push({ name: manifest.name, version: manifest.version, node: manifest.engines?.node });
    found.push(...installedPackages(path));
  };
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const scoped of readdirSync(join(modules, entry))) visit(join(modules, entry, scoped));
    else visit(join(modules, entry));
  }
  return found;
}

describe('engines', () => {
  const supported = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node as string;

  // What npm ci checks before it warns EBADENGINE, on the oldest Node the README promises and on this one.
  it.each([semver.minVersion(supported)!.version, process.version])(
    'every installed package accepts Node %s, so npm ci warns of no engine',
    (node) => {
      const packages = installedPackages(root);
      expect(packages.length).toBeGreaterThan(100);
      const refusing = packages
        .filter((pkg) => pkg.node !== undefined && !semver.satisfies(node, pkg.node, { includePrerelease: true }))
        .map((pkg) => `${pkg.name}@${pkg.version} requires node ${pkg.node}`);
      expect(refusing).toEqual([]);
    },
  );
});
