/**
 * A loopback webhook receiver for the suites (development mode lets the fleet deliver to
 * http://127.0.0.1), and the two signature checks docs/webhooks.md tells receivers to make.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: http.IncomingHttpHeaders;
  /** The body exactly as it arrived (what the signatures cover). */
  raw: Buffer;
  /** The status this receiver answered. */
  status: number;
  /** The body parsed (every delivery is JSON). */
  json: DeliveryBody;
}

export interface DeliveryBody {
  event: string;
  timestamp: number;
  data: any;
}

export interface WebhookReceiver {
  url: string;
  received: Delivery[];
  /** Answers `status` with `body` from now on (200 with an empty body until told otherwise). */
  answer(status: number, body?: string): void;
  /** The bodies received so far, parsed, in order of arrival. */
  events(): DeliveryBody[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Delivery[] = [];
  let status = 200;
  let body = '';
  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({ headers: incoming.headers, raw, status, json: JSON.parse(raw.toString('utf8')) });
      outgoing.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tix`,
    received,
    answer(nextStatus, nextBody = '') {
      status = nextStatus;
      body = nextBody;
    },
    events: () => received.map((entry) => entry.json),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The spec's X-Webhook-Signature: the hex HMAC-SHA256 of the raw body keyed with `secret`. */
export function hexSignatureValid(secret: string, delivery: Delivery): boolean {
  const header = String(delivery.headers['x-webhook-signature']);
  const expected = createHmac('sha256', secret).update(delivery.raw).digest();
  return /^[0-9a-f]{64}$/.test(header) && timingSafeEqual(expected, Buffer.from(header, 'hex'));
}

/** Which entries of `webhook-signature` (Standard Webhooks) verify with `secret`, by position. */
export function standardSignatureMatches(secret: string, delivery: Delivery): boolean[] {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${String(delivery.headers['webhook-id'])}.${String(delivery.headers['webhook-timestamp'])}.`;
  const expected = createHmac('sha256', key).update(signed).update(delivery.raw).digest();
  return String(delivery.headers['webhook-signature'])
    .split(' ')
    .map((candidate) => {
      const mac = Buffer.from(candidate.slice(3), 'base64');
      return candidate.startsWith('v1,') && mac.length === expected.length && timingSafeEqual(mac, expected);
    });
}

/** Both schemes verify, as a receiver following docs/webhooks.md would check. */
export function deliveryVerifies(secret: string, delivery: Delivery): boolean {
  return hexSignatureValid(secret, delivery) && standardSignatureMatches(secret, delivery).includes(true);
}
