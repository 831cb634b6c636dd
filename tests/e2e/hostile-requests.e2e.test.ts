/**
 * The requests that once took the gateway down or answered 500, replayed against the real fleet as
 * a hostile client would send them, in a loop: each must get its 4xx in the envelope, and no process
 * of the fleet may exit (the launcher records every crash, also those it restarts).
 */
import { expect } from 'chai';
import { createKey, createProject, createTicketType } from '../support/fixtures.js';
import { fleet } from '../support/fleet.js';

interface Answer {
  status: number;
  body: { ok?: boolean; error?: { code?: number; message?: string }; data?: unknown };
}

async function send(path: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(`${fleet().apiUrl}/v1${path}`, init);
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Answer['body'] };
}

function expectRefused(answer: Answer, status: number, message: string): void {
  expect(answer.body, JSON.stringify(answer.body)).to.deep.equal({
    ok: false,
    error: { code: status, message },
  });
  expect(answer.status).to.equal(status);
}

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('hostile requests that once crashed the gateway or answered 500', function () {
  this.timeout(120_000);
  let key: string;
  let typeId: number;
  let ticketId: number;
  let crashesBefore: number;

  before(async () => {
    const project = await createProject();
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    key = (await createKey({ project: project.slug })).key;
    const created = await send('/tickets', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ticket_type_id: typeId, title: 'Target' }),
    });
    ticketId = (created.body.data as { ticket: { id: number } }).ticket.id;
    crashesBefore = fleet().crashes.length;
  });

  afterEach(async () => {
    expect(fleet().crashes.slice(crashesBefore), 'a process of the fleet exited').to.deep.equal([]);
    const health = await fetch(`${fleet().apiUrl}/healthz`);
    expect(health.status).to.equal(200);
  });

  it('a truncated multipart upload (no closing boundary) answers 400, twenty times in a row', async () => {
    const truncated =
      '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello world';
    for (let round = 0; round < 20; round += 1) {
      const answer = await send(`/tickets/${ticketId}/attachments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=XYZ' },
        body: truncated,
      });
      expectRefused(answer, 400, 'Malformed multipart/form-data body');
    }
    const list = await send(`/tickets/${ticketId}/attachments`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(list.body.data).to.deep.equal({ attachments: [] });
  });

  it('custom_fields nested 10,000 deep, and an unknown property with an Idempotency-Key, answer 400', async () => {
    const message = 'JSON nested deeper than 32 levels (objects and arrays)';
    const post = (body: string, idempotencyKey?: string) =>
      send('/tickets', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body,
      });
    const head = `{"ticket_type_id":${typeId},"title":"Deep"`;
    for (let round = 0; round < 5; round += 1) {
      expectRefused(await post(`${head},"custom_fields":{"env":${nested(10_000)}}}`), 400, message);
      expectRefused(await post(`${head},"zzz_unknown":${nested(10_000)}}`, `deep-${round}`), 400, message);
      expectRefused(
        await post(`${head},"custom_fields":${nested(10_000)}}`, `deep-cf-${round}`),
        400,
        message,
      );
    }
    // The refused key was never claimed: the same key now creates the ticket.
    const created = await post(`${head}}`, 'deep-0');
    expect(created.status).to.equal(201);
  });
});
