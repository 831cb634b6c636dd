/** RabbitMQ helpers for end-to-end tests: a durable probe queue, and stopping/starting the broker. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import amqp from 'amqplib';
import { EVENTS_EXCHANGE, type DomainEvent } from '@tix/protos';
import { fleet } from './fleet.js';

const run = promisify(execFile);

/**
 * A durable queue bound to `pattern` on the events exchange of the fleet's virtual host. It survives a
 * broker restart, so it records what was published before and after an outage.
 */
export async function createProbeQueue(
  name: string,
  pattern: string,
): Promise<{ drain(): Promise<DomainEvent[]>; remove(): Promise<void> }> {
  const url = fleet().env.AMQP_URL!;
  const declare = async () => {
    const connection = await amqp.connect(url);
    const channel = await connection.createChannel();
    return { connection, channel };
  };
  const { connection, channel } = await declare();
  await channel.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
  await channel.assertQueue(name, { durable: true });
  await channel.bindQueue(name, EVENTS_EXCHANGE, pattern);
  await connection.close();
  return {
    /** Takes every message currently in the queue. */
    async drain() {
      const { connection: c, channel: ch } = await declare();
      const events: DomainEvent[] = [];
      for (;;) {
        const message = await ch.get(name, { noAck: true });
        if (!message) break;
        events.push(JSON.parse(message.content.toString()) as DomainEvent);
      }
      await c.close();
      return events;
    },
    async remove() {
      const { connection: c, channel: ch } = await declare();
      await ch.deleteQueue(name);
      await c.close();
    },
  };
}

/** Stops the RabbitMQ application on this machine (the broker process stays up). */
export async function stopBroker(): Promise<void> {
  await run('rabbitmqctl', ['stop_app']);
}

/** Starts it again and waits until it accepts work. */
export async function startBroker(): Promise<void> {
  await run('rabbitmqctl', ['start_app']);
  await run('rabbitmqctl', ['await_startup', '--timeout', '60']);
}
