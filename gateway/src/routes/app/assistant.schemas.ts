/**
 * The request schemas of the assistant and search routes (docs/assistant.md, "The API"): a
 * suggestion request's body, the queries of availability, predictions and the two searches. The
 * gateway checks shapes and bounds; whether the ticket exists is the ticket service's to say, and
 * how to rank, compose and scrub is the ai service's.
 */
import { z } from 'zod';
import {
  codePointLength,
  DEFAULT_MIN_CONFIDENCE,
  DEFAULT_SUGGESTION_TONE,
  fitsCodePoints,
  hasControlCharacters,
  hasLoneSurrogate,
  MAX_INT32,
  SOURCE_LIMITS,
  SUGGESTION_TONES,
} from '@tix/protos';
import {
  enumField,
  type FieldDoc,
  idField,
  idParam,
  integerField,
  integerParam,
  pageParams,
} from '../../http/schema-fields.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

export const SEARCH_LIMITS = { q: 200, questionMin: 3, question: 500 } as const;
export const INVALID_PREDICTION_ID_MESSAGE = 'Invalid prediction id';
const MIN_CONFIDENCE_MESSAGE = 'Min confidence must be a number from 0 to 1';

// ---- pieces ---------------------------------------------------------------------------------------

function ticketIdParam(description: string) {
  return integerParam({
    min: 1,
    max: MAX_INT32,
    message: 'ticket_id must be a ticket id (a positive integer)',
    description,
    example: 42,
  });
}

/**
 * Words to search for, `min` to `max` characters after trimming. Control characters (but tab and
 * line breaks) and lone surrogates are refused: no text search can match them, and PostgreSQL cannot
 * even hold NUL.
 */
function searchTextParam(doc: FieldDoc & { min: number; max: number }) {
  const message = `q must be ${doc.min} to ${doc.max} characters`;
  return z
    .string({ error: message })
    .trim()
    .refine((text) => fitsCodePoints(text, doc.max) && codePointLength(text) >= doc.min, message)
    .refine(
      (text) => !hasControlCharacters(text, true) && !hasLoneSurrogate(text),
      'q must not contain control characters',
    )
    .meta({ ...doc, minLength: doc.min, maxLength: doc.max });
}

const sourcesDescription = `At most this many resolved tickets to draw on, ${SOURCE_LIMITS.min} to ${SOURCE_LIMITS.max}.`;

// ---- the routes -----------------------------------------------------------------------------------

/** POST /ai/suggest-reply. */
export const suggestReplyBody = z.object(
  {
    ticket_id: idField('Ticket ID', { description: 'The ticket to reply to, in the project.', example: 42 }),
    tone: enumField('Tone', SUGGESTION_TONES, {
      description: `${SUGGESTION_TONES.join(', ')}: how the reply greets and signs off.`,
      example: 'friendly',
    }).default(DEFAULT_SUGGESTION_TONE),
    max_sources: integerField('Max sources', {
      min: SOURCE_LIMITS.min,
      max: SOURCE_LIMITS.max,
      description: sourcesDescription,
      example: 3,
    }).default(SOURCE_LIMITS.default),
    min_confidence: z
      .number({ error: MIN_CONFIDENCE_MESSAGE })
      .min(0, MIN_CONFIDENCE_MESSAGE)
      .max(1, MIN_CONFIDENCE_MESSAGE)
      .meta({
        description: `Suggest nothing below this confidence, 0 to 1; absent: the assistant's floor (${DEFAULT_MIN_CONFIDENCE} by default).`,
        example: 0.5,
      })
      .optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

/** GET /ai/suggest-reply/availability. */
export const availabilityQuery = z.object({
  ticket_id: ticketIdParam('Ask about this ticket of the project (404 when it is not one).').optional(),
});

/** GET /ai/predictions. */
export const listPredictionsQuery = z.object({
  ticket_id: ticketIdParam('The ticket whose predictions to list.'),
});

/** POST /ai/predictions/{id}/accept. */
export const predictionIdParams = z.object({
  id: idParam({ message: INVALID_PREDICTION_ID_MESSAGE, description: 'Prediction id.', example: 981 }),
});

/** GET /search/tickets. */
export const searchTicketsQuery = z.object({
  q: searchTextParam({
    min: 1,
    max: SEARCH_LIMITS.q,
    description: 'Words to find in titles, descriptions and comments, or a ticket number such as `ACME-17`.',
    example: 'printer on fire',
  }),
  ...pageParams('Results'),
});

/** GET /search/ai. */
export const searchAiQuery = z.object({
  q: searchTextParam({
    min: SEARCH_LIMITS.questionMin,
    max: SEARCH_LIMITS.question,
    description: 'The question, in plain words.',
    example: 'How do I reset my password?',
  }),
  max_sources: integerParam({
    min: SOURCE_LIMITS.min,
    max: SOURCE_LIMITS.max,
    message: `max_sources must be an integer from ${SOURCE_LIMITS.min} to ${SOURCE_LIMITS.max}`,
    description: sourcesDescription,
    example: 3,
  }).default(SOURCE_LIMITS.default),
});

export type SuggestReplyBody = z.output<typeof suggestReplyBody>;
