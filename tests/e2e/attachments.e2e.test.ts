/**
 * Attachments through the real fleet (gateway -> attachment service -> ticket service, bytes in the
 * embedded S3 store started by the launcher): a 20 MB file round-trips byte for byte, a non-ASCII
 * name comes back with the spec's headers, another project's attachment id is 404, refusals leave
 * nothing, a delete makes the attachment 404, and attachment.created / attachment.deleted reach
 * RabbitMQ once each.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { eventually, expectError } from '@tix/kit/testing';
import type { DomainEvent } from '@tix/protos';
import { createProbeQueue } from '../support/broker.js';
import { fleet } from '../support/fleet.js';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  type ProjectFixture,
  unique,
} from '../support/fixtures.js';
import { request } from '../support/http.js';

/** A whole 1x1 PNG: the type check recognises it whatever follows. */
const PNG_HEAD = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0d6b5e70000000049454e44ae426082',
  'hex',
);

/** `length` bytes: a 1x1 PNG, then every byte value pseudo-randomly. */
function binaryPng(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = 0x2545f491;
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  PNG_HEAD.copy(bytes);
  return bytes;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('attachments through the fleet', function () {
  this.timeout(120_000);
  let project: ProjectFixture;
  let other: ProjectFixture;
  let key: Awaited<ReturnType<typeof createKey>>;
  let otherKey: Awaited<ReturnType<typeof createKey>>;
  let probe: Awaited<ReturnType<typeof createProbeQueue>>;

  before(async () => {
    probe = await createProbeQueue(unique('e2e-attachments-'), 'attachment.*');
    project = await createProject();
    other = await createProject();
    for (const target of [project, other]) {
      await createTicketType(target.slug, { isDefault: true });
    }
    key = await createKey({ project: project.slug });
    otherKey = await createKey({ project: other.slug });
  });
  after(async () => {
    await probe?.remove();
  });

  async function newTicket(apiKey = key.key): Promise<number> {
    const types = await request('/v1/ticket-types', { key: apiKey });
    const ticket = await createTicket(apiKey, {
      ticket_type_id: types.body.data.ticket_types[0].id,
      title: 'Files attached',
    });
    return ticket.id as number;
  }

  async function upload(ticketId: number, bytes: Buffer, filename: string, type: string, apiKey = key.key) {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), filename);
    const response = await fetch(`${fleet().apiUrl}/v1/tickets/${ticketId}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: form,
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text), text };
  }

  function download(id: number, apiKey = key.key) {
    return fetch(`${fleet().apiUrl}/v1/attachments/${id}/download`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
  }

  it('round-trips a 20 MB binary file byte for byte, with the spec headers for a non-ASCII name', async () => {
    const ticketId = await newTicket();
    const bytes = binaryPng(20 * 1024 * 1024);
    const uploaded = await upload(ticketId, bytes, 'Ünïcödé 图像 2026.png', 'image/png');
    expect(uploaded.status, uploaded.text).to.equal(201);
    const attachment = uploaded.body.data.attachment;
    expect(attachment).to.deep.equal({
      id: attachment.id,
      ticket_id: ticketId,
      original_filename: 'Ünïcödé 图像 2026.png',
      mime_type: 'image/png',
      size_bytes: bytes.length,
      created_at: attachment.created_at,
    });

    const response = await download(attachment.id);
    expect(response.status).to.equal(200);
    expect(
      Object.fromEntries(
        [
          'content-type',
          'content-disposition',
          'content-length',
          'cache-control',
          'x-content-type-options',
        ].map((name) => [name, response.headers.get(name)]),
      ),
    ).to.deep.equal({
      'content-type': 'image/png',
      'content-disposition': `attachment; filename="_n_c_d_ __ 2026.png"; filename*=UTF-8''%C3%9Cn%C3%AFc%C3%B6d%C3%A9%20%E5%9B%BE%E5%83%8F%202026.png`,
      'content-length': String(bytes.length),
      'cache-control': 'private, no-cache',
      'x-content-type-options': 'nosniff',
    });
    expect(response.headers.get('x-correlation-id')).to.be.a('string').and.not.equal('');
    expect(sha256(Buffer.from(await response.arrayBuffer()))).to.equal(sha256(bytes));

    const list = await request(`/v1/tickets/${ticketId}/attachments`, { key: key.key });
    expect(list.body).to.deep.equal({ ok: true, data: { attachments: [attachment] } });
  });

  it("answers 404 for another project's attachment id, and refuses a renamed executable", async () => {
    const ticketId = await newTicket();
    const uploaded = await upload(ticketId, binaryPng(1000), 'mine.png', 'image/png');
    const id = uploaded.body.data.attachment.id as number;
    const theirDownload = await download(id, otherKey.key);
    expect(theirDownload.status).to.equal(404);
    expect(await theirDownload.json()).to.deep.equal({
      ok: false,
      error: { code: 404, message: 'Attachment not found' },
    });
    expectError(
      await request(`/v1/attachments/${id}`, { method: 'DELETE', key: otherKey.key }),
      404,
      'Attachment not found',
    );
    expectError(
      await request(`/v1/tickets/${ticketId}/attachments`, { key: otherKey.key }),
      404,
      'Ticket not found',
    );

    const exe = Buffer.alloc(2048, 0x90);
    exe.write('MZ', 0, 'latin1');
    const refused = await upload(ticketId, exe, 'kitten.png', 'image/png');
    expect(refused.status, refused.text).to.equal(422);
    expect(refused.body).to.deep.equal({
      ok: false,
      error: {
        code: 422,
        message: 'Validation failed',
        validation_errors: { file: ['File type application/x-msdownload is not allowed'] },
      },
    });
  });

  it('deletes (200, then 404) and publishes attachment.created and attachment.deleted once each', async () => {
    const ticketId = await newTicket();
    const uploaded = await upload(ticketId, Buffer.from('id,name\n1,Zoë\n'), 'people.csv', 'text/csv');
    expect(uploaded.status, uploaded.text).to.equal(201);
    const attachment = uploaded.body.data.attachment;
    expect(attachment.mime_type).to.equal('text/csv');
    const deleted = await request(`/v1/attachments/${attachment.id}`, { method: 'DELETE', key: key.key });
    expect(deleted.body).to.deep.equal({ ok: true, data: { message: 'Attachment deleted' } });
    expect((await download(attachment.id)).status).to.equal(404);

    const events: DomainEvent[] = [];
    await eventually(async () => {
      events.push(...(await probe.drain()));
      return events.some((event) => event.type === 'attachment.deleted' && event.data.id === attachment.id);
    }, 20_000);
    const mine = events.filter((event) => event.data.id === attachment.id);
    expect(mine.map((event) => event.type)).to.deep.equal(['attachment.created', 'attachment.deleted']);
    for (const event of mine) {
      expect(event).to.deep.include({ source: 'attachments', project_id: project.id, data: attachment });
    }
  });
});
