import { expect } from 'chai';
import { FLEET } from '@tix/protos';
import { DURABLE_EVENT_QUEUES, durableQueue } from '../../src/index.js';

/** The arguments RabbitMQ holds for a queue: a redeclaration with any other value is refused. */
const declared = (name: string) => ({
  'x-queue-type': 'quorum',
  'x-delivery-limit': 5,
  'x-dead-letter-exchange': 'tix.events.dlx',
  'x-dead-letter-routing-key': name,
  'x-dead-letter-strategy': 'at-least-once',
  'x-overflow': 'reject-publish',
});

describe('durable queues', () => {
  it('declares every queue of the fleet map as a quorum queue dead-lettering to its own .dlq', () => {
    expect(durableQueue('webhooks.events', FLEET.webhooks.queues['webhooks.events'])).to.deep.equal({
      name: 'webhooks.events',
      bindings: ['ticket.*', 'comment.*', 'attachment.*'],
      arguments: declared('webhooks.events'),
      deadLetterQueue: 'webhooks.events.dlq',
    });
  });

  it('holds every queue of the fleet, with the names, bindings and arguments deployments already have', () => {
    expect(Object.fromEntries(DURABLE_EVENT_QUEUES.map((queue) => [queue.name, queue]))).to.deep.equal({
      'webhooks.events': {
        name: 'webhooks.events',
        bindings: ['ticket.*', 'comment.*', 'attachment.*'],
        arguments: declared('webhooks.events'),
        deadLetterQueue: 'webhooks.events.dlq',
      },
      'tickets.lookup-events': {
        name: 'tickets.lookup-events',
        bindings: ['project.updated', 'ticket_type.updated'],
        arguments: declared('tickets.lookup-events'),
        deadLetterQueue: 'tickets.lookup-events.dlq',
      },
      'tickets.customer-events': {
        name: 'tickets.customer-events',
        bindings: ['customer.merged'],
        arguments: declared('tickets.customer-events'),
        deadLetterQueue: 'tickets.customer-events.dlq',
      },
      'activity.events': {
        name: 'activity.events',
        bindings: ['ticket.*', 'comment.*', 'attachment.*', 'ai.*'],
        arguments: declared('activity.events'),
        deadLetterQueue: 'activity.events.dlq',
      },
      'ai.events': {
        name: 'ai.events',
        bindings: ['ticket.*', 'comment.*'],
        arguments: declared('ai.events'),
        deadLetterQueue: 'ai.events.dlq',
      },
      'mail.comments': {
        name: 'mail.comments',
        bindings: ['comment.created'],
        arguments: declared('mail.comments'),
        deadLetterQueue: 'mail.comments.dlq',
      },
      'sla.events': {
        name: 'sla.events',
        bindings: ['ticket.*', 'comment.*'],
        arguments: declared('sla.events'),
        deadLetterQueue: 'sla.events.dlq',
      },
    });
  });
});
