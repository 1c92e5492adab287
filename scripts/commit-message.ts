/**
 * The commit-msg hook's check (`.husky/commit-msg`, installed by `npm ci`): a subject line of at most 72
 * characters, so `git log --oneline` and a shortlog read in one line each, and a blank line before the body
 * that says why. Lines git drops (comments, the diff of `commit -v`) are not the message.
 */
import { readFileSync } from 'node:fs';

export const MAX_SUBJECT = 72;

/** What is wrong with a commit message, one line each; empty when it is fine. */
export function commitMessageProblems(raw: string): string[] {
  const scissors = raw.indexOf('# ------------------------ >8 ------------------------');
  const lines = (scissors === -1 ? raw : raw.slice(0, scissors)).split('\n').filter((line) => !line.startsWith('#'));
  const [subject = '', second] = lines;
  const problems: string[] = [];
  if (subject.trim() === '') problems.push('the subject line is empty');
  const length = [...subject].length;
  if (length > MAX_SUBJECT) problems.push(`the subject line is ${length} characters; at most ${MAX_SUBJECT}`);
  if (second !== undefined && second.trim() !== '') problems.push('the subject line must be followed by a blank line');
  return problems;
}

if (process.argv[1] === import.meta.filename) {
  const file = process.argv[2];
  if (file === undefined) {
    console.error('usage: commit-message.ts <file holding the message>');
    process.exit(2);
  }
  const problems = commitMessageProblems(readFileSync(file, 'utf8'));
  for (const problem of problems) console.error(`commit-msg: ${problem} (CONTRIBUTING.md, "Commits")`);
  process.exit(problems.length === 0 ? 0 : 1);
}
