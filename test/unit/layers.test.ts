import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers of the service, lowest first, each a set of folders of `src/`. A module imports only from its own layer or below, so the core
 * never depends on how it is stored, served or started. Type-only imports count: they tie modules as tightly.
 */
const LAYERS: readonly { name: string; holds: readonly string[] }[] = [
  { name: 'support: helpers that know nothing of natures or stores', holds: ['support'] },
  {
    name: 'domain: pure decide/evolve rules, scoring, the careers catalogue and the reading of situations',
    holds: ['scoring', 'domain', 'careers', 'situational'],
  },
  { name: 'views: pure renderings of domain values (the profile chart)', holds: ['charts'] },
  { name: 'ports: what the core asks of the world outside', holds: ['ports'] },
  { name: 'settings: the configuration, read once', holds: ['settings'] },
  {
    name: 'core: commands, the privacy envelope, webhook delivery, the projector and the lease',
    holds: ['commands', 'privacy', 'webhooks', 'projector'],
  },
  // Definitions the projector runs; their reactors call commands, so they sit just above them.
  { name: 'definitions: projections and reactors', holds: ['projections'] },
  { name: 'adapters: the backends behind the ports', holds: ['adapters'] },
  // The one place each backend is chosen from the configuration, its servers probed, and the environments assembled.
  { name: 'wiring: the backends chosen once, the environments assembled', holds: ['wiring'] },
  { name: 'interfaces: the HTTP API, the operator CLI, the dashboard and the MCP server', holds: ['http', 'cli', 'dashboard', 'mcp'] },
  { name: 'process: the server started', holds: ['server'] },
];

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

interface Import {
  from: string;
  to: string;
}

/** Every relative import (static, dynamic, type-only or re-export) from one of `files` to another, as paths from the root; one to a module outside them throws. */
function importsAmong(files: readonly string[]): Import[] {
  return files.flatMap((from) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, from), 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, '.ts'))
      .filter((to) => {
        // A module the check cannot see would be an edge it silently drops: only data files (package.json) may be.
        if (to.endsWith('.ts') && !files.includes(to)) throw new Error(`${from} imports ${to}, which is not a file of src/`);
        return files.includes(to);
      });
    return [...new Set(targets)].map((to) => ({ from, to }));
  });
}

/** A module's layer, by the folder of `src/` it is in: a module directly in `src/` has none. */
function layerOf(file: string): number {
  return LAYERS.findIndex((layer) => layer.holds.includes(folderOf(file)));
}

/** A module's first-level folder of `src/` (`src/http/routes/items.ts` is in `http`); a file directly in `src/` is its own. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : file;
}

/** The imports between the units `unitOf` puts files in, as a graph; imports inside a unit left out. */
function graphOf(imports: readonly Import[], unitOf: (file: string) => string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const { from, to } of imports) {
    const [source, target] = [unitOf(from), unitOf(to)];
    if (source !== target) graph.set(source, [...new Set([...(graph.get(source) ?? []), target])]);
  }
  return graph;
}

/** The strongly connected groups of more than one node (Tarjan): each is an import cycle. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      group.unshift(member);
    } while (member !== node);
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const files = sourceFiles('src');
const imports = importsAmong(files);

describe('layers', () => {
  it('keeps no module directly in src/: each is in a folder that names its layer', () => {
    expect(files.filter((file) => file.split('/').length === 2)).toEqual([]);
  });

  it('places every folder of src/ in a layer', () => {
    expect([...new Set(files.map(folderOf))].filter((folder) => LAYERS.every((layer) => !layer.holds.includes(folder)))).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(cycles(graphOf(imports, (file) => file))).toEqual([]);
  });

  it('has no import cycle between folders', () => {
    expect(cycles(graphOf(imports, folderOf))).toEqual([]);
  });

  it('has no import that runs back up a layer', () => {
    const upward = imports
      .filter(({ from, to }) => layerOf(to) > layerOf(from))
      .map(({ from, to }) => `${from} (${LAYERS[layerOf(from)]?.name}) imports ${to} (${LAYERS[layerOf(to)]?.name})`);
    expect(upward).toEqual([]);
  });
});
