import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitMessageProblems } from '../../scripts/commit-message.js';
import { tempDir } from '../support/temp-dir.js';

describe('the commit-msg check', () => {
  it('takes a subject of 72 characters and a body after a blank line', () => {
    expect(commitMessageProblems(`${'s'.repeat(72)}\n\nWhy it changed.\n`)).toEqual([]);
    expect(commitMessageProblems('Fix the retry bound\n')).toEqual([]);
  });

  it('refuses a subject of 73 characters, counting characters rather than bytes', () => {
    expect(commitMessageProblems(`${'s'.repeat(73)}\n`)).toEqual(['the subject line is 73 characters; at most 72']);
    expect(commitMessageProblems(`${'é'.repeat(72)}\n`)).toEqual([]);
  });

  it('refuses an empty subject and a body with no blank line before it', () => {
    expect(commitMessageProblems('\n\nbody\n')).toEqual(['the subject line is empty']);
    expect(commitMessageProblems('Subject\nbody at once\n')).toEqual(['the subject line must be followed by a blank line']);
  });

  it("reads the message as git keeps it: comment lines and a verbose commit's diff are not part of it", () => {
    const verbose = `Subject\n\n# Please enter the commit message\n# ------------------------ >8 ------------------------\n${'d'.repeat(100)}\n`;
    expect(commitMessageProblems(`# ${'c'.repeat(100)}\nSubject\n`)).toEqual([]);
    expect(commitMessageProblems(verbose)).toEqual([]);
  });

  it('is what the hook that npm ci installs runs: it exits 1 naming the problem, 0 for a good message', () => {
    const dir = tempDir('nature-commit-msg-');
    try {
      const run = (message: string) => {
        const file = join(dir.path, 'COMMIT_EDITMSG');
        writeFileSync(file, message);
        return spawnSync('sh', ['.husky/commit-msg', file], { encoding: 'utf8' });
      };
      const long = run(`${'s'.repeat(80)}\n`);
      expect(long.status).toBe(1);
      expect(long.stderr).toContain('the subject line is 80 characters; at most 72');
      expect(run('A short subject\n\nThe why.\n').status).toBe(0);
    } finally {
      dir.cleanup();
    }
  });
});
