import { z } from 'zod';
import { eventTypes } from '../domain/webhook-endpoint.js';
import { languages } from '../scoring/languages.js';
import { exampleIds, id, timestamp } from './schemas.js';

export const eventId = id('evt', exampleIds.event, 'The event id.');

/** An event as the API shows it: listed, fetched, redelivered, or sent as a test to one webhook endpoint. */
export const eventResource = z
  .object({
    id: eventId.describe('Also the webhook-id header of every delivery of this event.'),
    object: z.literal('event'),
    type: z.enum(eventTypes),
    created_at: timestamp,
    livemode: z.boolean(),
    data: z.union([
      z
        .object({
          profile_id: id('prf', exampleIds.profile),
          assessment_id: id('asm', exampleIds.assessment),
          subject_id: id('sub', exampleIds.subject),
          previous_profile_id: id('prf', exampleIds.previousProfile, 'nature.profile.updated: the profile it replaces.').optional(),
          scoring_version: z
            .string()
            .optional()
            .describe('nature.profile.updated: the scoring version of the new profile.')
            .meta({ examples: ['mn76-v2'] }),
        })
        .describe('nature.assessment.completed and nature.profile.updated.'),
      z
        .object({
          id: id('sit', exampleIds.situational, 'The situational assessment.'),
          subject_id: id('sub', exampleIds.subject),
          status: z.enum(['completed', 'failed']).describe('How it ended: GET the situational assessment for its result or failure_code.'),
        })
        .describe('situational.assessment.completed.'),
      z
        .object({
          assessment_id: id('asm', exampleIds.assessment),
          subject_id: id('sub', exampleIds.subject),
          language: z.enum(languages).optional().describe('nature.assessment.started: the language it is given in.'),
          expires_at: timestamp
            .optional()
            .describe('nature.assessment.started and nature.assessment.expired: when it expires (expired) unless completed first.'),
          reason: z
            .enum(['requested', 'erasure'])
            .optional()
            .describe('nature.assessment.abandoned: the caller abandoned it, or the subject’s erasure closed it.'),
        })
        .describe('nature.assessment.started, nature.assessment.abandoned and nature.assessment.expired.'),
      z.object({ subject_id: id('sub', exampleIds.subject) }).describe('nature.subject.created and nature.subject.erased: the id alone.'),
    ]),
  })
  .meta({ id: 'Event' });
