/**
 * The top self-time functions of V8 CPU profiles, as a markdown table: what a benchmark run under
 * `BENCH_CPU_PROF=DIR` spent its time on, without opening DevTools.
 *
 *   cd bench && npm run profile-summary -- DIR/*.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { root } from './lib/paths.js';
import { table } from './lib/report.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' } }, allowPositionals: true });
if (positionals.length === 0) {
  console.error('usage: npm run profile-summary -- <file.cpuprofile>… [--top N]');
  process.exit(1);
}

/**
 * Where a function lives, short: the checkout's own files relative to it, dependencies by package. No line:
 * tsx compiles without source maps in the profile, so V8's line numbers are the compiled file's.
 */
function place(url: string): string {
  if (url === '') return '';
  const path = url.replace(/^file:\/\//, '');
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dependency) return dependency[1]!;
  if (path.startsWith('node:')) return path;
  return relative(root, path);
}

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const frame = byId.get(id)!.callFrame;
    const key = `${frame.functionName || '(anonymous)'}\t${place(frame.url)}`;
    self.set(key, (self.get(key) ?? 0) + delta);
    total += delta;
  });
  const idle = self.get('(idle)\t') ?? 0;
  const busy = total - idle;
  console.log(
    `\n### ${file}\n\n${(total / 1e6).toFixed(1)} s profiled, ${((busy / total) * 100).toFixed(0)} % busy; shares are of the busy time.\n`,
  );
  const rows = [...self]
    .filter(([key]) => key !== '(idle)\t')
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values.top))
    .map(([key, micros]) => {
      const [name, where] = key.split('\t') as [string, string];
      return [name, where, `${((micros / busy) * 100).toFixed(1)} %`];
    });
  console.log(table(['function', 'where', 'self'], rows));
}
