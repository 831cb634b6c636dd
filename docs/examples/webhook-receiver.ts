/**
 * A Tix webhook receiver with no dependency (Node.js 20.19+, TypeScript run by tsx or compiled by tsc).
 * It verifies the Standard Webhooks headers over the raw body, refuses attempts older or newer than
 * five minutes, skips an event it has already handled (same `webhook-id`) and answers 2xx quickly.
 *
 *   TIX_WEBHOOK_SECRET='whsec_...' PORT=4000 npx tsx docs/examples/webhook-receiver.ts
 *
 * PORT=0 picks a free port; the first line on stdout names the address either way.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { pathToFileURL } from 'node:url';

/** How far a `webhook-timestamp` may be from this machine's clock (replay protection). */
const TOLERANCE_SECONDS = 5 * 60;

/** The HMAC key of a secret: `whsec_<base64>` decodes to bytes; any other secret is its UTF-8 text. */
function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const encoded = secret.slice('whsec_'.length);
    const decoded = Buffer.from(encoded, 'base64');
    if (decoded.length > 0 && decoded.toString('base64') === encoded) return decoded;
  }
  return Buffer.from(secret, 'utf8');
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/**
 * True when `webhook-signature` holds a `v1,<base64>` entry equal to HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<raw body>` and the timestamp is within the tolerance.
 */
export function verifyStandardWebhook(
  secret: string,
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  nowSeconds: number = Date.now() / 1000,
): boolean {
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  if (id === '' || !/^\d+$/.test(timestampText)) return false;
  if (Math.abs(nowSeconds - Number(timestampText)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', standardWebhooksKey(secret))
    .update(`${id}.${timestampText}.`)
    .update(rawBody)
    .digest();
  // Several entries may be sent (space-separated); one match is enough.
  return header(headers, 'webhook-signature')
    .split(' ')
    .some((entry) => {
      if (!entry.startsWith('v1,')) return false;
      const given = Buffer.from(entry.slice('v1,'.length), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** The API specification's scheme: `X-Webhook-Signature` is hex HMAC-SHA256 of the raw body, keyed with the whole secret. */
export function verifyHexSignature(secret: string, rawBody: Buffer, signature: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

interface Delivery {
  event: string;
  timestamp: number;
  data: Record<string, unknown>;
}

/** Starts the receiver; resolves with the port it listens on. */
export function startReceiver(secret: string, port: number): Promise<number> {
  const handled = new Set<string>(); // keep event ids in your database in production
  const server = createServer((request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks); // verify these exact bytes, before parsing
      if (!verifyStandardWebhook(secret, rawBody, request.headers)) {
        console.log(`refused: signature or timestamp invalid`);
        response.writeHead(401).end();
        return;
      }
      const eventId = header(request.headers, 'webhook-id');
      if (handled.has(eventId)) {
        console.log(`duplicate ${eventId}: already handled`);
        response.writeHead(200).end();
        return;
      }
      handled.add(eventId);
      const delivery = JSON.parse(rawBody.toString('utf8')) as Delivery;
      console.log(`verified ${delivery.event} ${eventId} ${JSON.stringify(delivery.data).slice(0, 80)}`);
      // Hand slow work to a queue: Tix waits 10 seconds at most for the answer.
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.TIX_WEBHOOK_SECRET;
  if (!secret) {
    console.error('Set TIX_WEBHOOK_SECRET to the secret shown when the subscription was created.');
    process.exit(2);
  }
  const port = await startReceiver(secret, Number(process.env.PORT ?? 4000));
  console.log(`listening on http://127.0.0.1:${port}/`);
}
