/**
 * The bench's webhook receiver: a loopback HTTP server with keep-alive that answers 200 at once and
 * records, per delivery, when it arrived, which subscription (path) and event (webhook-id) it was,
 * and the ticket id it carried. A sample of deliveries has both signatures checked, so the bench
 * measures deliveries a real receiver would accept.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  at: number;
  path: string;
  eventId: string;
  ticketId: number;
}

export interface BenchReceiver {
  /** Base URL; subscriptions append their own path. */
  url: string;
  arrivals: Arrival[];
  /** Resolves at the first arrival carrying `ticketId` (performance.now() of it). */
  waitForTicket(ticketId: number, timeoutMs: number): Promise<number>;
  /** Secrets by path, for the signature sample. */
  secrets: Map<string, string>;
  /** Deliveries whose signatures were checked, and how many failed. */
  checked(): { checked: number; invalid: number };
  close(): Promise<void>;
}

function signaturesValid(secret: string, raw: Buffer, headers: http.IncomingHttpHeaders): boolean {
  const hex = String(headers['x-webhook-signature'] ?? '');
  const mac = createHmac('sha256', secret).update(raw).digest();
  const hexOk = hex.length === 64 && timingSafeEqual(mac, Buffer.from(hex, 'hex'));
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
  const expected = createHmac('sha256', key)
    .update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.`)
    .update(raw)
    .digest();
  const given = Buffer.from(String(headers['webhook-signature'] ?? '').slice(3), 'base64');
  return hexOk && given.length === expected.length && timingSafeEqual(given, expected);
}

/** Starts the receiver on a free loopback port. */
export async function startBenchReceiver(): Promise<BenchReceiver> {
  const arrivals: Arrival[] = [];
  const waiters = new Map<number, (at: number) => void>();
  const secrets = new Map<string, string>();
  let checked = 0;
  let invalid = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      response.writeHead(200, { 'content-length': '0' });
      response.end();
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString('utf8')) as { data: { id: number } };
      const path = request.url ?? '';
      arrivals.push({ at, path, eventId: String(request.headers['webhook-id']), ticketId: body.data.id });
      if (arrivals.length % 25 === 1) {
        const secret = secrets.get(path);
        if (secret !== undefined) {
          checked += 1;
          if (!signaturesValid(secret, raw, request.headers)) invalid += 1;
        }
      }
      const waiter = waiters.get(body.data.id);
      if (waiter) {
        waiters.delete(body.data.id);
        waiter(at);
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    secrets,
    checked: () => ({ checked, invalid }),
    waitForTicket(ticketId, timeoutMs) {
      const already = arrivals.find((arrival) => arrival.ticketId === ticketId);
      if (already) return Promise.resolve(already.at);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(ticketId);
          reject(new Error(`no delivery of ticket ${ticketId} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.set(ticketId, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
