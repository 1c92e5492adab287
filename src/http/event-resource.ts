import { z } from 'zod';
import { eventTypes } from '../domain/webhook-endpoint.js';
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
    ]),
  })
  .meta({ id: 'Event' });
