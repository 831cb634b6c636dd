/**
 * What the webhook integration tests share: a real local receiver (raw bytes and headers of every
 * request, answers scripted per request), a publisher of real DomainEvents onto a vhost's events
 * exchange, signature checks done the way a receiver must do them (HMAC over the raw bytes,
 * timingSafeEqual), and principals.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import amqp from 'amqplib';
import { assertEventTopology, type OutgoingContext } from '@tix/kit';
import { EVENTS_EXCHANGE, type DomainEvent, type EventType, type Principal } from '@tix/protos';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** When it arrived (performance.now()). */
  at: number;
  /** The status answered; null while unanswered (or never: a hang). */
  status: number | null;
}

/** What the receiver answers one request: a status, optionally after a delay, or never (hang). */
export type Answer = number | { status: number; delayMs?: number; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted so far (a refused target must not even connect). */
  connections(): number;
  /** Answers for the next requests, in order; when none is left, `fallback` (default 200). */
  script(answers: Answer[], fallback?: Answer): void;
  /** Requests whose webhook-id is `id`. */
  byEventId(id: string): ReceivedRequest[];
  close(): Promise<void>;
}

/** A loopback HTTP receiver that records every request exactly as it arrived. */
export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let answers: Answer[] = [];
  let fallback: Answer = 200;
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        raw: Buffer.concat(chunks),
        at: performance.now(),
        status: null,
      };
      requests.push(received);
      const answer = answers.length > 0 ? answers.shift()! : fallback;
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      const { status, delayMs, headers } = typeof answer === 'number' ? { status: answer } : answer;
      const reply = () => {
        received.status = status;
        response.writeHead(status, { 'content-type': 'text/plain', ...headers });
        response.end('ok');
      };
      if (delayMs) setTimeout(reply, delayMs);
      else reply();
    });
  });
  server.keepAliveTimeout = 60_000;
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    connections: () => connections,
    script(next, otherwise = 200) {
      answers = [...next];
      fallback = otherwise;
    },
    byEventId: (id) => requests.filter((request) => request.headers['webhook-id'] === id),
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A publisher of raw messages and DomainEvents to the vhost's events exchange (topology declared). */
export async function openPublisher(amqpUrl: string) {
  const connection = await amqp.connect(amqpUrl);
  const channel = await connection.createConfirmChannel();
  await assertEventTopology(channel);
  const publish = async (routingKey: string, content: Buffer, messageId?: string) => {
    channel.publish(EVENTS_EXCHANGE, routingKey, content, {
      persistent: true,
      contentType: 'application/json',
      ...(messageId ? { messageId } : {}),
    });
    await channel.waitForConfirms();
  };
  return {
    channel,
    publishEvent: (event: DomainEvent) => publish(event.type, Buffer.from(JSON.stringify(event)), event.id),
    publishRaw: (routingKey: string, content: string) => publish(routingKey, Buffer.from(content)),
    close: () => connection.close(),
  };
}

/** A well-formed DomainEvent of `type` in `projectId`, occurred at a fixed whole second. */
export function domainEvent(type: EventType, projectId: number, data: Record<string, unknown>): DomainEvent {
  return {
    id: randomUUID(),
    type,
    occurred_at: '2026-11-21T10:00:00.000Z',
    source: type.startsWith('comment.') ? 'comments' : 'tickets',
    project_id: projectId,
    data,
  };
}

/** Unix seconds of domainEvent's occurred_at. */
export const EVENT_TIMESTAMP = Date.parse('2026-11-21T10:00:00.000Z') / 1000;

function equalConstantTime(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * True when both signatures of `request` verify against `secret` the way docs/webhooks.md tells a
 * receiver to: the spec's hex HMAC over the raw body, and the Standard Webhooks v1 signature over
 * `id.timestamp.body` with the whsec_ key decoded.
 */
export function signaturesValid(
  secret: string,
  request: ReceivedRequest,
): { hex: boolean; standard: boolean } {
  const header = String(request.headers['x-webhook-signature'] ?? '');
  const hex =
    /^[0-9a-f]{64}$/.test(header) &&
    equalConstantTime(createHmac('sha256', secret).update(request.raw).digest(), Buffer.from(header, 'hex'));
  const id = String(request.headers['webhook-id'] ?? '');
  const timestamp = String(request.headers['webhook-timestamp'] ?? '');
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`), request.raw]))
    .digest();
  const standard = String(request.headers['webhook-signature'] ?? '')
    .split(' ')
    .some(
      (entry) =>
        entry.startsWith('v1,') && equalConstantTime(expected, Buffer.from(entry.slice(3), 'base64')),
    );
  return { hex, standard };
}

/** The call context of user `userId` through an API key. */
export function asUser(userId: number): OutgoingContext {
  const principal: Principal = {
    kind: 'api_key',
    user_id: userId,
    role: 'agent',
    scopes: ['tickets:read', 'tickets:write'],
  };
  return { principal };
}

/** Waits `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
