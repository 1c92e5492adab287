import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers of the service, lowest first. A module imports only from its own layer or below, so the core
 * never depends on how it is stored, served or started. Type-only imports count: they tie modules as tightly.
 */
const LAYERS: readonly { name: string; holds: readonly string[] }[] = [
  {
    name: 'support: helpers that know nothing of natures or stores',
    holds: [
      'src/pause.ts',
      'src/backoff.ts',
      'src/backend-timeout.ts',
      'src/backend-urls.ts',
      'src/operator-errors.ts',
      'src/secret-redaction.ts',
      'src/process-alive.ts',
      'src/logger.ts',
      'src/data-dir.ts',
      'src/shutdown.ts',
      'src/runtime-figures.ts',
      'src/batched-lines.ts',
    ],
  },
  { name: 'domain: pure decide/evolve rules and scoring', holds: ['src/scoring/', 'src/domain/'] },
  { name: 'views: pure renderings of domain values (the profile chart)', holds: ['src/charts/'] },
  { name: 'ports: what the core asks of the world outside', holds: ['src/ports/'] },
  { name: 'settings: the configuration, read once', holds: ['src/config.ts'] },
  {
    name: 'core: commands, the privacy envelope, webhook delivery, the projector and the lease',
    holds: ['src/commands/', 'src/privacy/', 'src/webhooks/', 'src/projector/', 'src/leadership.ts'],
  },
  // Definitions the projector runs; their reactors call commands, so they sit just above them.
  { name: 'definitions: projections and reactors', holds: ['projections/'] },
  { name: 'adapters: the backends behind the ports', holds: ['src/adapters/'] },
  // The one place each backend is chosen from the configuration, and the start-up probes of their servers.
  { name: 'backends: the adapters chosen once', holds: ['src/backends.ts', 'src/backend-checks.ts'] },
  { name: 'wiring: the environments, assembled from backends and core', holds: ['src/environments.ts'] },
  {
    name: 'interfaces: the HTTP API, the operator CLI, the dashboard and the MCP server',
    holds: ['src/http/', 'src/cli/', 'src/dashboard/', 'src/mcp/'],
  },
  { name: 'process: the server started', holds: ['src/main.ts', 'src/start-line.ts'] },
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
        if (to.endsWith('.ts') && !files.includes(to))
          throw new Error(`${from} imports ${to}, which is not a file of src/ or projections/`);
        return files.includes(to);
      });
    return [...new Set(targets)].map((to) => ({ from, to }));
  });
}

function layerOf(file: string): number {
  return LAYERS.findIndex((layer) => layer.holds.some((held) => (held.endsWith('/') ? file.startsWith(held) : file === held)));
}

/** A file's folder for the folder-level check: `projections`, a first-level folder of `src`, or a file directly in `src` alone. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts[0] === 'src' && parts.length > 2 ? `src/${parts[1]}` : parts[0] === 'src' ? file : parts[0]!;
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

const files = [...sourceFiles('src'), ...sourceFiles('projections')];
const imports = importsAmong(files);

describe('layers', () => {
  it('places every module of src/ and projections/ in a layer', () => {
    expect(files.filter((file) => layerOf(file) === -1)).toEqual([]);
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
