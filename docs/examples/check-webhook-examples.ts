/**
 * Proves the two receivers in this folder verify what Tix sends: deliveries are signed here by the
 * webhook service's own code (services/webhooks/src/delivery/signing.ts, the headers every attempt
 * carries) and posted to webhook-receiver.ts and webhook_receiver.py, each run as its own process,
 * for a generated `whsec_` secret and for a secret of the subscriber's choosing. Each receiver must
 * accept a fresh delivery (204), acknowledge its retry as a duplicate (200), and refuse a changed
 * body, a stale timestamp and another secret's signature (401). The spec's X-Webhook-Signature is
 * checked against both languages' verifyHexSignature too.
 *
 *   npx tsx docs/examples/check-webhook-examples.ts      (needs python3; exit 0 when all pass)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { deliveryHeaders } from '../../services/webhooks/src/delivery/signing.js';
import { verifyHexSignature } from './webhook-receiver.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const RECEIVERS = {
  typescript: [process.execPath, ['--import', 'tsx', path.join(here, 'webhook-receiver.ts')]],
  python: ['python3', [path.join(here, 'webhook_receiver.py')]],
} as const satisfies Record<string, readonly [string, readonly string[]]>;

const SECRETS = {
  generated: `whsec_${randomBytes(32).toString('base64')}`,
  chosen: 'my-own-secret-with-24-chars',
};

/** A delivery as the webhook service sends it: the event body and every header of one attempt. */
function signedDelivery(secret: string, eventId: string, attemptTime: Date) {
  const body = Buffer.from(
    JSON.stringify({
      event: 'ticket.created',
      timestamp: Math.floor(attemptTime.getTime() / 1000),
      data: { id: 42, ticket_number: 'SUP-42', title: 'Café au lait ☕', version: 1 },
    }),
  );
  return {
    body,
    headers: deliveryHeaders({ eventType: 'ticket.created', eventId, secret, body, now: attemptTime }),
  };
}

async function post(
  port: number,
  delivery: { body: Buffer; headers: Record<string, string> },
): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body,
  });
  return response.status;
}

/** Starts a receiver and waits for its "listening on ...:<port>/" line. */
async function startReceiver(command: string, args: readonly string[], secret: string) {
  const child: ChildProcess = spawn(command, args, {
    env: { ...process.env, TIX_WEBHOOK_SECRET: secret, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code} before listening`)));
    lines.once('line', (line) => resolve(Number(/:(\d+)\/$/.exec(line)?.[1])));
  });
  return { port, stop: () => child.kill() };
}

/** Runs the Python verify_hex_signature on one input, in the receiver's module. */
function pythonHexVerifies(secret: string, body: Buffer, signature: string): boolean {
  const script = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(here)})`,
    'from webhook_receiver import verify_hex_signature',
    'given = json.load(sys.stdin)',
    "print(verify_hex_signature(given['secret'], given['body'].encode('utf-8'), given['signature']))",
  ].join('\n');
  const result = spawnSync('python3', ['-c', script], {
    input: JSON.stringify({ secret, body: body.toString('utf8'), signature }),
    encoding: 'utf8',
  });
  return result.stdout.trim() === 'True';
}

let failures = 0;
function expectEqual(label: string, actual: unknown, expected: unknown): void {
  const ok = actual === expected;
  if (!ok) failures += 1;
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${label}: ${String(actual)}${ok ? '' : ` (expected ${String(expected)})`}`,
  );
}

for (const [language, [command, args]] of Object.entries(RECEIVERS)) {
  for (const [kind, secret] of Object.entries(SECRETS)) {
    const receiver = await startReceiver(command, args, secret);
    try {
      const label = `${language}, ${kind} secret`;
      const fresh = signedDelivery(secret, randomUUID(), new Date());
      expectEqual(`${label}, fresh delivery`, await post(receiver.port, fresh), 204);
      expectEqual(`${label}, its retry`, await post(receiver.port, fresh), 200);
      const changed = {
        ...fresh,
        body: Buffer.from(fresh.body.toString('utf8').replace('SUP-42', 'SUP-43')),
      };
      expectEqual(`${label}, body changed`, await post(receiver.port, changed), 401);
      const stale = signedDelivery(secret, randomUUID(), new Date(Date.now() - 6 * 60 * 1000));
      expectEqual(`${label}, six minutes old`, await post(receiver.port, stale), 401);
      const forged = signedDelivery(`whsec_${randomBytes(32).toString('base64')}`, randomUUID(), new Date());
      expectEqual(`${label}, another secret`, await post(receiver.port, forged), 401);
      if (language === 'typescript') {
        const hex = fresh.headers['X-Webhook-Signature']!;
        expectEqual(`${label}, X-Webhook-Signature`, verifyHexSignature(secret, fresh.body, hex), true);
        expectEqual(
          `${label}, X-Webhook-Signature, body changed`,
          verifyHexSignature(secret, changed.body, hex),
          false,
        );
      } else {
        const hex = fresh.headers['X-Webhook-Signature']!;
        expectEqual(`${label}, X-Webhook-Signature`, pythonHexVerifies(secret, fresh.body, hex), true);
        expectEqual(
          `${label}, X-Webhook-Signature, body changed`,
          pythonHexVerifies(secret, changed.body, hex),
          false,
        );
      }
    } finally {
      receiver.stop();
    }
  }
}

console.log(failures === 0 ? 'all checks passed' : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
