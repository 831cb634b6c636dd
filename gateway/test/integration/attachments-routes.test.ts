/**
 * The attachment routes over real HTTP against the real attachment, ticket and lookup services
 * (fresh databases) and an embedded S3 store (support/attachments-fixture.ts): exact bytes and the
 * spec's headers back for a binary file with a non-ASCII name, names sent as RFC 5987 `filename*`,
 * the list, one attachment, HEAD, and deletion with its events.
 */
import { expect } from 'chai';
import { expectError, suiteFixture } from '@tix/kit/testing';
import {
  binaryPng,
  form,
  PNG,
  rawMultipart,
  startAttachmentRoutesFixture,
} from '../support/attachments-fixture.js';
import { bearer } from '../support/test-gateway.js';

describe('attachment routes: uploads, downloads, deletion (real services and store)', function () {
  this.timeout(120_000);
  const f = suiteFixture(() => startAttachmentRoutesFixture('gateway_attachments'));

  it('uploads a binary file with a non-ASCII name and downloads the exact bytes with the spec headers', async () => {
    const ticketId = await f.createTicket();
    const bytes = binaryPng(700_001);
    const response = await f.post(
      `/tickets/${ticketId}/attachments?project=alpha`,
      form(bytes, 'Résumé 履歴書 (v2).png', 'image/png'),
    );
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    const attachment = response.body.data.attachment;
    expect(response.body).to.deep.equal({
      ok: true,
      data: {
        attachment: {
          id: attachment.id,
          ticket_id: ticketId,
          original_filename: 'Résumé 履歴書 (v2).png',
          mime_type: 'image/png',
          size_bytes: 700_001,
          created_at: attachment.created_at,
        },
      },
    });

    const download = await fetch(
      `${f.gateway.apiUrl}/v1/attachments/${attachment.id}/download?project=alpha`,
      {
        headers: { ...bearer(f.keys.full), 'X-Correlation-ID': 'download-check-1' },
      },
    );
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-type')).to.equal('image/png');
    expect(download.headers.get('content-disposition')).to.equal(
      `attachment; filename="R_sum_ ___ (v2).png"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%E5%B1%A5%E6%AD%B4%E6%9B%B8%20%28v2%29.png`,
    );
    expect(download.headers.get('content-length')).to.equal('700001');
    expect(download.headers.get('cache-control')).to.equal('private, no-cache');
    expect(download.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(download.headers.get('x-correlation-id')).to.equal('download-check-1');
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).to.equal(true);
  });

  it('keeps a quoted name sent as RFC 5987 filename*, escaping the quotes in the ASCII fallback', async () => {
    const ticketId = await f.createTicket();
    const { body, contentType } = rawMultipart([
      {
        headers: [
          `Content-Disposition: form-data; name="file"; filename="fallback.pdf"; filename*=UTF-8''${encodeURIComponent('say "hi" Zoë.pdf')}`,
          'Content-Type: application/pdf',
        ],
        body: '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n',
      },
    ]);
    const response = await f.post(`/tickets/${ticketId}/attachments?project=alpha`, body, { contentType });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    expect(response.body.data.attachment).to.deep.include({
      original_filename: 'say "hi" Zoë.pdf',
      mime_type: 'application/pdf',
    });
    const download = await fetch(
      `${f.gateway.apiUrl}/v1/attachments/${response.body.data.attachment.id}/download?project=alpha`,
      { headers: bearer(f.keys.full) },
    );
    expect(download.headers.get('content-disposition')).to.equal(
      `attachment; filename="say \\"hi\\" Zo_.pdf"; filename*=UTF-8''say%20%22hi%22%20Zo%C3%AB.pdf`,
    );
    await download.arrayBuffer();
  });

  it('lists a ticket’s attachments, gets one, answers HEAD with the headers only', async () => {
    const ticketId = await f.createTicket();
    const first = await f.upload(ticketId, PNG, 'one.png');
    const second = await f.upload(ticketId, Buffer.from('a,b\n1,2\n'), 'two.csv', 'text/csv');
    expect(second.mime_type).to.equal('text/csv');
    const list = await f.call('GET', `/tickets/${ticketId}/attachments?project=alpha`);
    expect(list.status).to.equal(200);
    expect(list.body).to.deep.equal({ ok: true, data: { attachments: [first, second] } });
    const one = await f.call('GET', `/attachments/${first.id}?project=alpha`, f.keys.readOnly);
    expect(one.body).to.deep.equal({ ok: true, data: { attachment: first } });
    const head = await fetch(`${f.gateway.apiUrl}/v1/attachments/${first.id}/download?project=alpha`, {
      method: 'HEAD',
      headers: bearer(f.keys.readOnly),
    });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-length')).to.equal(String(PNG.length));
    expect(await head.text()).to.equal('');
  });

  it('deletes: 200 with a message, the object gone, one attachment.deleted, then 404', async () => {
    const ticketId = await f.createTicket();
    const created = await f.upload(ticketId, PNG, 'bye.png');
    const objectsBefore = (await f.s3.objectKeys()).length;
    const deleted = await f.call('DELETE', `/attachments/${created.id}?project=alpha`);
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ ok: true, data: { message: 'Attachment deleted' } });
    expect((await f.s3.objectKeys()).length).to.equal(objectsBefore - 1);
    expectError(
      await f.call('GET', `/attachments/${created.id}/download?project=alpha`),
      404,
      'Attachment not found',
    );
    expectError(
      await f.call('DELETE', `/attachments/${created.id}?project=alpha`),
      404,
      'Attachment not found',
    );
    const events = (await f.database.events()).filter((event) => event.payload.data.id === created.id);
    expect(events.map((event) => event.event_type)).to.deep.equal([
      'attachment.created',
      'attachment.deleted',
    ]);
    expect(events[1]!.payload).to.deep.include({ project_id: f.ids.alpha, data: created });
  });
});
