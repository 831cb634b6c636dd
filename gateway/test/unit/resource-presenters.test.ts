/**
 * The presenters write exactly the JSON the contract declares (@tix/contract resources/*): each
 * answer parses with its schema in strict mode, no field missing and none unknown, the parts the
 * contract names (statuses, attempts, actor, subject) included. The examples of the API description
 * are the presenters' own output for sample messages (resources/examples.ts).
 */
import { expect } from 'chai';
import type { z } from 'zod';
import {
  activityActorSchema,
  activitySchema,
  activitySubjectSchema,
  apiKeySchema,
  createdWebhookSchema,
  deliveryAttemptSchema,
  deliverySchema,
  pingResultSchema,
  presentApiKey,
  projectSchema,
  projectStatusSchema,
  rotatedWebhookSchema,
  streamedEventSchema,
  ticketTypeSchema,
  userSchema,
  webhookDetailSchema,
  webhookSchema,
} from '@tix/protos';
import { EXAMPLES } from '../../src/resources/examples.js';

/** The issues of parsing `value` with `schema` in strict mode (none: it has exactly the fields). */
function strictIssues(schema: z.ZodObject, value: unknown) {
  return schema.strict().safeParse(value).error?.issues ?? [];
}

const CASES: [string, z.ZodObject, unknown][] = [
  ['a project (presentProject)', projectSchema, EXAMPLES.project],
  ['a ticket type (presentTicketType)', ticketTypeSchema, EXAMPLES.ticketType],
  ['a user (presentUser)', userSchema, EXAMPLES.user],
  [
    'an API key (presentApiKey)',
    apiKeySchema,
    presentApiKey({
      id: 12,
      name: 'Zapier',
      prefix: 'tix_4fGh9KqL',
      scopes: ['tickets:read'],
      user_id: 3,
      created_at: '2025-03-14T09:26:53.589Z',
    }),
  ],
  ['a webhook (presentWebhook)', webhookSchema, EXAMPLES.webhook],
  ['a created webhook, with its secret (presentWebhook)', createdWebhookSchema, EXAMPLES.createdWebhook],
  [
    'a webhook as its own endpoints answer it (presentWebhookDetail)',
    webhookDetailSchema,
    EXAMPLES.webhookDetail,
  ],
  [
    'a webhook after a rotation (presentWebhookDetail and the new secret)',
    rotatedWebhookSchema,
    EXAMPLES.rotatedWebhook,
  ],
  ['a delivery (presentDelivery)', deliverySchema, EXAMPLES.delivery],
  ['a ping (presentPing)', pingResultSchema, EXAMPLES.ping],
  ['an activity entry (presentActivity)', activitySchema, EXAMPLES.activity],
  ['a comment activity entry (presentActivity)', activitySchema, EXAMPLES.commentActivity],
  ['a streamed event (presentStreamedEvent)', streamedEventSchema, EXAMPLES.streamedEvent],
];

describe("the presenters against the contract's schemas in strict mode", () => {
  for (const [what, schema, value] of CASES) {
    it(`${what}: no field missing, none unknown`, () => {
      expect(strictIssues(schema, value)).to.deep.equal([]);
    });
  }

  it('the parts the contract names: statuses, attempts, actor and subject', () => {
    for (const status of EXAMPLES.project.statuses)
      expect(strictIssues(projectStatusSchema, status)).to.deep.equal([]);
    for (const attempt of EXAMPLES.delivery.attempts)
      expect(strictIssues(deliveryAttemptSchema, attempt)).to.deep.equal([]);
    expect(strictIssues(activityActorSchema, EXAMPLES.activity.actor)).to.deep.equal([]);
    expect(strictIssues(activitySubjectSchema, EXAMPLES.activity.subject)).to.deep.equal([]);
  });

  it('fails the strict schema when a field is added or missing (the checks above can fail)', () => {
    expect(strictIssues(userSchema, { ...EXAMPLES.user, password_hash: 'x' })).to.not.deep.equal([]);
    const { is_system: _system, ...withoutSystem } = EXAMPLES.user;
    expect(strictIssues(userSchema, withoutSystem)).to.not.deep.equal([]);
  });
});
