import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { holderGone, INSTANCE } from '../../src/support/process-alive.js';

describe('holderGone', () => {
  it('counts a holder whose process of this host has exited as gone, and one still running as not', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const pid = child.pid!;
    expect(holderGone({ pid })).toBe(false);
    expect(holderGone({ pid, host: hostname() })).toBe(false);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(holderGone({ pid })).toBe(true);
    expect(holderGone({ pid, host: hostname() })).toBe(true);
  });

  it('never counts a holder of another host as gone: its processes cannot be seen from here', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(child, 'exit');
    expect(holderGone({ pid: child.pid!, host: `not-${hostname()}` })).toBe(false);
  });

  it('counts a holder with this pid as gone only when its instance is an earlier process', () => {
    expect(holderGone({ pid: process.pid })).toBe(false);
    expect(holderGone({ pid: process.pid, instance: INSTANCE })).toBe(false);
    expect(holderGone({ pid: process.pid, instance: 'an earlier process with this pid' })).toBe(true);
  });
});
