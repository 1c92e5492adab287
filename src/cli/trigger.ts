import { createHash, randomUUID } from 'node:crypto';
import type { NatureClient } from '@nature-profile/client';
import { Argument, Command } from 'commander';
import { pause } from '../support/pause.js';
import { type ApiOptions, apiAccess, withApiOptions } from './api-access.js';
import { CliError } from './errors.js';
import type { Output } from './keys.js';

/** The event types `nature trigger` can cause: profile.updated comes from a rescore, which is the operator's. */
const triggerable = ['nature.assessment.completed'] as const;

/** How often and how long the command looks for the completion it caused. */
const POLL_MS = 250;

/** Answers that vary across the scale, the same on every run: a sandbox profile with some of each band. */
const answer = (index: number) => 1 + ((index * 7 + Math.floor(index / 5)) % 5);

interface Triggered {
  subject_id: string;
  assessment_id: string;
  profile_id: string;
  event_id: string;
}

/** Polls `read` until it gives a value, for at most `timeoutMs`. */
async function waitFor<T>(what: string, timeoutMs: number, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new CliError(`${what} did not happen within ${timeoutMs / 1000} s: is the server's scoring running?`);
    await pause(POLL_MS);
  }
}

/** A real sandbox completion: a subject, an assessment, its 76 answers in four batches; then its profile and event. */
async function completeAnAssessment(nature: NatureClient, timeoutMs: number): Promise<Triggered> {
  const consent = {
    text_version: 'nature-trigger',
    granted_at: new Date().toISOString(),
    ui_hash: `sha256:${createHash('sha256').update('nature trigger').digest('hex')}`,
  };
  const subject = await nature.subjects.create({
    external_subject_id: `trigger-${randomUUID()}`,
    metadata: { source: 'nature trigger' },
    consent,
  });
  const assessment = await nature.assessments.start(subject.id, { language: 'en' });
  const items = await nature.items.list();
  for (let batch = 0; batch < 4; batch += 1) {
    const from = batch * 19;
    const responses = items.data.slice(from, from + 19).map((item, index) => ({ item_id: item.id, value: answer(from + index) }));
    await nature.assessments.submit(subject.id, assessment.id, { responses });
  }
  const profile_id = await waitFor('the scoring', timeoutMs, async () => {
    const read = await nature.assessments.get(subject.id, assessment.id);
    return read.profile_id ?? undefined;
  });
  const event_id = await waitFor('the nature.assessment.completed event', timeoutMs, async () => {
    for await (const event of nature.events.list({ limit: 100 })) {
      if (event.type === 'nature.assessment.completed' && event.data.assessment_id === assessment.id) return event.id;
      // Newest first: an event before the assessment started is not it.
      if (event.created_at < assessment.created_at) return undefined;
    }
    return undefined;
  });
  return { subject_id: subject.id, assessment_id: assessment.id, profile_id, event_id };
}

/** `nature trigger <event>`: makes the event happen for real in the sandbox, through the API. */
export function triggerCommand(env: NodeJS.ProcessEnv, output: Output): Command {
  return withApiOptions(
    new Command('trigger')
      .description('cause an event for real in the sandbox, through the API (a subject and a completed assessment), and print the ids')
      .addArgument(new Argument('<event>', 'the event type').choices(triggerable))
      .option('--timeout <seconds>', 'how long to wait for the scoring and its event', (value) => Number(value), 60)
      .option('--json', 'print one JSON object with the ids'),
  ).action(async (_event: string, options: ApiOptions & { timeout: number; json?: boolean }) => {
    const { nature } = apiAccess(options, env, { command: 'nature trigger', writes: true });
    if (!(options.timeout > 0)) throw new CliError('--timeout is a number of seconds above 0');
    const triggered = await completeAnAssessment(nature, options.timeout * 1000);
    if (options.json) return output.out(JSON.stringify(triggered));
    for (const [name, id] of Object.entries(triggered)) output.out(`${name.padEnd(14)}${id}`);
  });
}
