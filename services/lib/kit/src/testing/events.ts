/** Hearing what reaches the events exchange, straight from the broker (not through a service). */
import amqp, { type ConsumeMessage } from 'amqplib';
import { EVENTS_EXCHANGE } from '@tix/protos';

/**
 * A listener of the events exchange on `amqpUrl`: a private queue bound by `pattern` (e.g. `#`,
 * `ticket.*`), each message handed to `onMessage` without acks. Close the connection it answers.
 */
export async function listenToEvents(
  amqpUrl: string,
  pattern: string,
  onMessage: (message: ConsumeMessage) => void,
): Promise<amqp.ChannelModel> {
  const connection = await amqp.connect(amqpUrl);
  const channel = await connection.createChannel();
  await channel.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, EVENTS_EXCHANGE, pattern);
  await channel.consume(
    queue,
    (message) => {
      if (message) onMessage(message);
    },
    { noAck: true },
  );
  return connection;
}
