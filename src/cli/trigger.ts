import { createHash, randomUUID } from 'node:crypto';
import type { NatureClient } from '@nature-profile/client';
import { Argument, Command } from 'commander';
import { type EventType, eventTypes } from '../domain/webhook-endpoint.js';
import { pause } from '../support/pause.js';
import { type ApiOptions, apiAccess, withApiOptions } from './api-access.js';
import { CliError } from './errors.js';
import type { Output } from './keys.js';

/**
 * The event types `nature trigger` cannot cause for real, and why; it causes every other one through the API.
 */
const notTriggerable = {
  'nature.profile.updated': 'it comes from a profile rebuild, an operator step (nature profiles rebuild, docs/operations.md)',
  'nature.assessment.expired': 'it comes 7 days after a start nobody finished (its shape is in /v1/openapi.json, under webhooks)',
  'situational.assessment.completed': 'it needs situational scopes; POST /v1/situational/assessments causes it (docs/situational.md)',
} as const satisfies Partial<Record<EventType, string>>;
type Triggerable = Exclude<EventType, keyof typeof notTriggerable>;
const isTriggerable = (type: EventType): type is Triggerable => !(type in notTriggerable);

/** How often and how long the command looks for the completion it caused. */
const POLL_MS = 250;

/** Answers that vary across the scale, the same on every run: a sandbox profile with some of each band. */
const answer = (index: number) => 1 + ((index * 7 + Math.floor(index / 5)) % 5);

/** The ids of what was made, and the id of the event it caused. */
type Triggered = Record<string, string> & { event_id: string };

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

/** A real sandbox subject, with its consent, made for a trigger. */
function createSubject(nature: NatureClient) {
  const consent = {
    text_version: 'nature-trigger',
    granted_at: new Date().toISOString(),
    ui_hash: `sha256:${createHash('sha256').update('nature trigger').digest('hex')}`,
  };
  return nature.subjects.create({ external_subject_id: `trigger-${randomUUID()}`, metadata: { source: 'nature trigger' }, consent });
}

/** Makes the event happen through the API: answers the ids it made, and the (assessment's or subject's) id the event names. */
async function cause(nature: NatureClient, type: Triggerable, timeoutMs: number): Promise<{ ids: Record<string, string>; about: string }> {
  const subject = await createSubject(nature);
  if (type === 'nature.subject.created') return { ids: { subject_id: subject.id }, about: subject.id };
  if (type === 'nature.subject.erased') {
    await nature.subjects.erase(subject.id);
    return { ids: { subject_id: subject.id }, about: subject.id };
  }
  const assessment = await nature.assessments.start(subject.id, { language: 'en' });
  const ids = { subject_id: subject.id, assessment_id: assessment.id };
  if (type === 'nature.assessment.started') return { ids, about: assessment.id };
  if (type === 'nature.assessment.abandoned') {
    await nature.assessments.abandon(subject.id, assessment.id);
    return { ids, about: assessment.id };
  }
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
  return { ids: { ...ids, profile_id }, about: assessment.id };
}

/** Causes the event for real, then finds it among the environment's events: the ids made, and the event's id. */
async function trigger(nature: NatureClient, type: Triggerable, timeoutMs: number): Promise<Triggered> {
  const since = new Date(Date.now() - 60_000).toISOString();
  const { ids, about } = await cause(nature, type, timeoutMs);
  const event_id = await waitFor(`the ${type} event`, timeoutMs, async () => {
    for await (const event of nature.events.list({ limit: 100 })) {
      const data: { assessment_id?: string; subject_id: string } = event.data;
      if (event.type === type && (data.assessment_id ?? data.subject_id) === about) return event.id;
      // Newest first: an event from before the trigger began is not it.
      if (event.created_at < since) return undefined;
    }
    return undefined;
  });
  return { ...ids, event_id };
}

/** `nature trigger <event>`: makes the event happen for real in the sandbox, through the API. */
export function triggerCommand(env: NodeJS.ProcessEnv, output: Output): Command {
  return withApiOptions(
    new Command('trigger')
      .description(
        'cause an event for real in the sandbox, through the API (a subject, and an assessment if the event needs one), and print the ids',
      )
      .addArgument(new Argument('<event>', 'the event type').choices(eventTypes))
      .option('--timeout <seconds>', 'how long to wait for the scoring and its event', (value) => Number(value), 60)
      .option('--json', 'print one JSON object with the ids'),
  ).action(async (event: EventType, options: ApiOptions & { timeout: number; json?: boolean }) => {
    if (!isTriggerable(event)) throw new CliError(`nature trigger cannot cause ${event}: ${notTriggerable[event]}`);
    const { nature } = apiAccess(options, env, { command: 'nature trigger', writes: true });
    if (!(options.timeout > 0)) throw new CliError('--timeout is a number of seconds above 0');
    const triggered = await trigger(nature, event, options.timeout * 1000);
    if (options.json) return output.out(JSON.stringify(triggered));
    for (const [name, id] of Object.entries(triggered)) output.out(`${name.padEnd(14)}${id}`);
  });
}
