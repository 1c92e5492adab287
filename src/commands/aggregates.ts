import { type AssessmentEvent, type AssessmentState, evolveAssessment } from '../domain/assessment.js';
import { type AssessmentLinkEvent, type AssessmentLinkIdChosen, type AssessmentLinkState, evolveLink } from '../domain/assessment-link.js';
import type { ScoringVersionActivated } from '../domain/scoring-versions.js';
import {
  evolveSituational,
  type SituationalAssessmentEvent,
  type SituationalAssessmentIdChosen,
  type SituationalAssessmentState,
} from '../domain/situational-assessment.js';
import {
  evolveSubject,
  initialSubjectState,
  type ReservationEvent,
  reservationHolder,
  type SubjectEvent,
  type SubjectState,
} from '../domain/subject.js';
import type { WebhookDeliveryAttempted, WebhookRedeliveryRequested } from '../domain/webhook-delivery.js';
import {
  evolveEndpoint,
  type WebhookEndpointEvent,
  type WebhookEndpointIdChosen,
  type WebhookEndpointState,
} from '../domain/webhook-endpoint.js';
import type { Aggregate, EventTypes } from './aggregate.js';

/** The streams the commands decide on, each with the events it holds and what they fold to. */

export const assessmentAggregate: Aggregate<AssessmentState, AssessmentEvent> = {
  initial: undefined,
  evolve: evolveAssessment,
  types: {
    AssessmentStarted: true,
    ResponsesSubmitted: true,
    ScoringCompleted: true,
    AssessmentAbandoned: true,
    AssessmentExpired: true,
    ProfileRescored: true,
    ProfileUpdated: true,
  },
};

export const subjectAggregate: Aggregate<SubjectState, SubjectEvent> = {
  initial: initialSubjectState,
  evolve: evolveSubject,
  types: { SubjectCreated: true, ConsentRecorded: true, AssessmentOpened: true, SubjectErased: true },
};

/** An external id's reservation: the subject holding it, if any. */
export const reservationAggregate: Aggregate<string | undefined, ReservationEvent> = {
  initial: undefined,
  evolve: (_holder, event) => reservationHolder([event]),
  types: { ExternalIdClaimed: true, ExternalIdReleased: true },
};

export const endpointAggregate: Aggregate<WebhookEndpointState, WebhookEndpointEvent> = {
  initial: undefined,
  evolve: evolveEndpoint,
  types: {
    WebhookEndpointCreated: true,
    WebhookEndpointDisabled: true,
    WebhookEndpointEnabled: true,
    WebhookEndpointUpdated: true,
    WebhookEndpointSecretRotated: true,
    WebhookEndpointDeleted: true,
  },
};

/** The endpoint id a keyed registration chose (see createEndpoint). */
export const endpointChoiceAggregate: Aggregate<string | undefined, WebhookEndpointIdChosen> = {
  initial: undefined,
  evolve: (_chosen, event) => event.data.endpoint_id,
  types: { WebhookEndpointIdChosen: true },
};

/** The scoring version served: the one activated last. */
export const scoringVersionsAggregate: Aggregate<string | undefined, ScoringVersionActivated> = {
  initial: undefined,
  evolve: (_active, event) => event.data.scoring_version,
  types: { ScoringVersionActivated: true },
};

export const situationalAggregate: Aggregate<SituationalAssessmentState, SituationalAssessmentEvent> = {
  initial: undefined,
  evolve: evolveSituational,
  types: { SituationalAssessmentRequested: true, SituationalAssessmentCompleted: true, SituationalAssessmentRecomputed: true },
};

/** The situational assessment id a keyed request chose (see requestSituationalAssessment). */
export const situationalChoiceAggregate: Aggregate<string | undefined, SituationalAssessmentIdChosen> = {
  initial: undefined,
  evolve: (_chosen, event) => event.data.situational_assessment_id,
  types: { SituationalAssessmentIdChosen: true },
};

export const linkAggregate: Aggregate<AssessmentLinkState, AssessmentLinkEvent> = {
  initial: undefined,
  evolve: evolveLink,
  types: { AssessmentLinkCreated: true, AssessmentLinkOpened: true, AssessmentLinkRevoked: true },
};

/** The link id a keyed create chose (see createAssessmentLink). */
export const linkChoiceAggregate: Aggregate<string | undefined, AssessmentLinkIdChosen> = {
  initial: undefined,
  evolve: (_chosen, event) => event.data.link_id,
  types: { AssessmentLinkIdChosen: true },
};

/** A delivery's attempts: read, never folded (the dispatcher counts them and looks at the last). */
export const deliveryAttempts: { types: EventTypes<WebhookDeliveryAttempted> } = { types: { WebhookDeliveryAttempted: true } };
/** An event's redeliveries asked for: read, never folded (a retry looks for one that supersedes it). */
export const redeliveryRequests: { types: EventTypes<WebhookRedeliveryRequested> } = { types: { WebhookRedeliveryRequested: true } };
