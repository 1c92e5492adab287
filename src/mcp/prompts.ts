import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Scope } from '../domain/api-keys.js';
import { banks } from '../scoring/item-bank.js';
import { type Language, languages } from '../scoring/languages.js';
import { type CallApi, InputError, pathOf } from './api-call.js';
import { asProtocolError } from './tool-results.js';

/** A prompt as the server offers it: registered only for a key with the scopes its tools need. */
export interface NaturePrompt {
  name: string;
  scopes: readonly Scope[];
  register(server: McpServer, call: CallApi): void;
}

/** How an agent gives the assessment to a person: one statement at a time, as written, on the 1..5 scale, never leading. */
function administration(subjectId: string, language: Language): string {
  const scale = banks[language].labels.map(({ value, label }) => `${value} = ${label}`).join('; ');
  return [
    `You are giving the Nature Profile assessment to the person you are talking with (subject ${subjectId}), in ${language === 'fr' ? 'French' : 'English'}.`,
    '',
    `1. Call start_assessment with subject_id ${subjectId} and language ${language}. If it answers assessment_in_progress, go on with the assessment_id it names: get_assessment tells you which items are still unanswered.`,
    `2. Call get_item_bank with language ${language}.`,
    '3. Present the statements one at a time, in id order, skipping those already answered. Quote each statement exactly as written, then the scale:',
    `   ${scale}.`,
    '   Ask how much the statement is like them. Do not explain, reword, illustrate or comment on a statement, and never suggest an answer',
    '   or show that one answer is better: there are no right answers. If they ask what a statement means, repeat it and say to answer as it reads to them.',
    '4. Record each answer as the number they chose. If they answer in words, ask them to pick one of the five. If they want to change an earlier answer, resend that item.',
    '5. Every 10 answers, and at the end, call submit_responses with the answers not yet sent, and an idempotency_key naming the batch (batch-1, batch-2, …).',
    '   If the call times out, send the same batch with the same idempotency_key: it is written once. If it answers validation_failed, fix the entries it names and send the batch with a new one.',
    '6. When all 76 are in, thank them. Call get_profile with the subject_id; if it is not ready yet, wait a moment and ask again.',
    '7. Offer to go through the result. If they want to, explain it as the explain_profile prompt says: in alphabetical order, never ranking.',
    '',
    'Keep it a conversation: short turns, one statement per turn, and let them take a break whenever they wish; the answers sent so far are kept for 7 days.',
  ].join('\n');
}

/** How an agent explains a profile: as the specification says, the service does not rank. */
const EXPLANATION_RULES = [
  'Explain this Nature Profile to the person it belongs to.',
  '',
  '- Go through the 9 Natures, then the 10 Intelligences, each in alphabetical order, as the profile lists them.',
  '- Each score is from 0 to 1. Describe it by its band (low, medium low, medium, medium high, high, very high) rather than as a number to compare.',
  '- Never rank: do not order the constructs by score, and never call one their top, best, strongest, weakest or main one. Do not compare them with other people.',
  '- Use the narratives (descriptions) as written for the constructs that have one; do not invent descriptions for the others.',
  '- This is a self-description, not a diagnosis, a test of ability or advice on a career. Say so if they ask what it proves.',
  "- Answer in the profile's language.",
].join('\n');

/** The profile the prompt explains; a refusal is thrown, its words the error the client shows. */
async function profileOf(call: CallApi, args: { profile_id?: string | undefined; subject_id?: string | undefined }) {
  if (args.profile_id) return (await call({ method: 'GET', path: pathOf`/v1/nature/profiles/${args.profile_id}` })) as { id: string };
  if (args.subject_id)
    return (await call({ method: 'GET', path: pathOf`/v1/nature/subjects/${args.subject_id}/profile` })) as { id: string };
  throw new InputError('Give profile_id, or subject_id for the latest profile.');
}

export const prompts: readonly NaturePrompt[] = [
  {
    name: 'administer_assessment',
    // It starts an assessment and sends answers, and reads the bank, the assessment and the profile.
    scopes: ['nature:read', 'nature:write'],
    register(server) {
      server.registerPrompt(
        'administer_assessment',
        {
          title: 'Give the assessment conversationally',
          description: 'Give the 76-item assessment to a person, one statement at a time on the 1..5 scale, without leading them.',
          argsSchema: {
            subject_id: z.string().describe('The subject id (sub_…) of the person, created with create_subject.'),
            language: z.enum(languages).optional().describe('en (default) or fr.'),
          },
        },
        ({ subject_id, language }): GetPromptResult => ({
          messages: [{ role: 'user', content: { type: 'text', text: administration(subject_id, language ?? 'en') } }],
        }),
      );
    },
  },
  {
    name: 'explain_profile',
    scopes: ['nature:read'],
    register(server, call) {
      server.registerPrompt(
        'explain_profile',
        {
          title: 'Explain a profile without ranking',
          description: 'Explain a profile to its person: every Nature and Intelligence in alphabetical order, by band, never ranked.',
          argsSchema: {
            profile_id: z.string().optional().describe('The profile id (prf_…).'),
            subject_id: z.string().optional().describe("Or a subject id (sub_…), for the subject's latest profile."),
          },
        },
        async (args): Promise<GetPromptResult> => {
          const profile = await profileOf(call, args).catch((error: unknown) => {
            throw asProtocolError(error);
          });
          return {
            messages: [
              {
                role: 'user',
                content: {
                  type: 'resource',
                  resource: {
                    uri: `nature://profiles/${profile.id}`,
                    mimeType: 'application/json',
                    text: JSON.stringify(profile, null, 2),
                  },
                },
              },
              { role: 'user', content: { type: 'text', text: EXPLANATION_RULES } },
            ],
          };
        },
      );
    },
  },
];
