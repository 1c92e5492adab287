import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BATCH_MS, BatchedLines } from '../../src/support/batched-lines.js';

/** A BatchedLines over a stream that records each write it is given. */
function batched() {
  const writes: string[] = [];
  return { lines: new BatchedLines(() => ({ write: (text: string) => void writes.push(text) })), writes };
}

describe('log lines written in batches', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes the lines of one moment together, in order, once the batch time has passed', () => {
    vi.useFakeTimers();
    const { lines, writes } = batched();
    lines.write('one\n');
    lines.write('two\n');
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(BATCH_MS);
    expect(writes).toEqual(['one\ntwo\n']);
    lines.write('three\n');
    vi.advanceTimersByTime(BATCH_MS);
    expect(writes).toEqual(['one\ntwo\n', 'three\n']);
  });

  it('writes a full batch at once', () => {
    vi.useFakeTimers();
    const { lines, writes } = batched();
    const line = `${'x'.repeat(1023)}\n`;
    for (let index = 0; index < 64; index++) lines.write(line);
    expect(writes).toEqual([line.repeat(64)]);
  });

  it('writes what it holds when the process exits', () => {
    // The server's own logger on stdout, in a process that exits at once after logging.
    const script = [
      "import { createLogger } from './src/support/logger.ts';",
      "const logger = createLogger('info');",
      "for (let index = 0; index < 100; index++) logger.info({ index }, 'a line');",
      'process.exit(0);',
    ].join('\n');
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    const indexes = output
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { index: number }).index);
    expect(indexes).toEqual([...Array(100).keys()]);
  });
});
