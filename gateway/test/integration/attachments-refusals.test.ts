/**
 * What the attachment routes refuse, over real HTTP against the real services and store
 * (support/attachments-fixture.ts, maximum 1 MiB on both sides): size (declared, streamed, chunked,
 * and by the service behind a lenient gateway) and type refusals with nothing left behind, 404 for
 * another project's attachment id, 503 while the store is down, and no 500 for any bad input.
 */
import { expect } from 'chai';
import { expectError, suiteFixture } from '@tix/kit/testing';
import {
  binaryPng,
  exe,
  form,
  MAX,
  PNG,
  rawMultipart,
  startAttachmentRoutesFixture,
} from '../support/attachments-fixture.js';

describe('attachment routes: refusals (real services and store)', function () {
  this.timeout(120_000);
  const f = suiteFixture(() => startAttachmentRoutesFixture('gateway_attachment_refusals'));

  it('refuses an over-limit upload with 422 and leaves no object and no row (declared and streamed sizes)', async () => {
    const ticketId = await f.createTicket();
    const before = await f.counts();
    const tooLarge = { file: ['File is larger than 1 MB'] };
    // Content-Length known: refused from the size alone (beyond the multipart allowance)...
    const declared = await f.post(
      `/tickets/${ticketId}/attachments?project=alpha`,
      form(binaryPng(3 * MAX), 'big.png'),
    );
    expectError(declared, 422, 'Validation failed', tooLarge);
    // ...and just over the limit: refused while streaming.
    const barely = await f.post(
      `/tickets/${ticketId}/attachments?project=alpha`,
      form(binaryPng(MAX + 1), 'big.png'),
    );
    expectError(barely, 422, 'Validation failed', tooLarge);
    // Chunked, without Content-Length.
    const { body, contentType } = rawMultipart([
      {
        headers: [
          'Content-Disposition: form-data; name="file"; filename="big.png"',
          'Content-Type: image/png',
        ],
        body: binaryPng(MAX + 200_000),
      },
    ]);
    const stream = new ReadableStream({
      start(controller) {
        for (let offset = 0; offset < body.length; offset += 50_000)
          controller.enqueue(body.subarray(offset, offset + 50_000));
        controller.close();
      },
    });
    const chunked = await f.post(`/tickets/${ticketId}/attachments?project=alpha`, stream, { contentType });
    expectError(chunked, 422, 'Validation failed', tooLarge);
    // The service enforces the limit itself, behind a gateway that lets more through.
    const lenient = await f.post(
      `/tickets/${ticketId}/attachments?project=alpha`,
      form(binaryPng(MAX + 1000), 'big.png'),
      {
        base: f.lenientGateway,
      },
    );
    expectError(lenient, 422, 'Validation failed', tooLarge);
    expect(await f.counts()).to.deep.equal(before);
    // A file of exactly the maximum is fine.
    expect((await f.upload(ticketId, binaryPng(MAX), 'max.png')).size_bytes).to.equal(MAX);
  });

  it('refuses an .exe renamed .png and a file whose content contradicts its claimed type', async () => {
    const ticketId = await f.createTicket();
    const before = await f.counts();
    expectError(
      await f.post(
        `/tickets/${ticketId}/attachments?project=alpha`,
        form(exe(), 'cute-cat.png', 'image/png'),
      ),
      422,
      'Validation failed',
      { file: ['File type application/x-msdownload is not allowed'] },
    );
    expectError(
      await f.post(`/tickets/${ticketId}/attachments?project=alpha`, form(PNG, 'notes.txt', 'text/plain')),
      422,
      'Validation failed',
      { file: ['File content is image/png, not the declared text/plain'] },
    );
    expectError(
      await f.post(
        `/tickets/${ticketId}/attachments?project=alpha`,
        form(Buffer.from('<svg onload="alert(1)"/>'), 'x.svg', 'image/svg+xml'),
      ),
      422,
      'Validation failed',
      { file: ['File type is not supported'] },
    );
    expect(await f.counts()).to.deep.equal(before);
  });

  it("answers 404 for another project's attachment id: get, download, delete; and its ticket's list", async () => {
    const alphaTicket = await f.createTicket('alpha');
    const theirs = await f.upload(alphaTicket, PNG, 'alpha-only.png');
    for (const [method, path] of [
      ['GET', `/attachments/${theirs.id}`],
      ['GET', `/attachments/${theirs.id}/download`],
      ['DELETE', `/attachments/${theirs.id}`],
    ] as const) {
      // A key scoped to beta, and a full key asking in beta.
      expectError(await f.call(method, path, f.keys.scopedBeta), 404, 'Attachment not found');
      expectError(await f.call(method, `${path}?project=beta`), 404, 'Attachment not found');
    }
    expectError(
      await f.call('GET', `/tickets/${alphaTicket}/attachments`, f.keys.scopedBeta),
      404,
      'Ticket not found',
    );
    expectError(
      await f.post(`/tickets/${alphaTicket}/attachments`, form(PNG, 'x.png'), { key: f.keys.scopedBeta }),
      404,
      'Ticket not found',
    );
    // Still whole for alpha.
    expect((await f.call('GET', `/attachments/${theirs.id}?project=alpha`)).status).to.equal(200);
  });

  it('answers 503 in the envelope while the store is down, and records nothing', async () => {
    const ticketId = await f.createTicket();
    const existing = await f.upload(ticketId, PNG, 'kept.png');
    const before = await f.counts();
    await f.s3.cut();
    try {
      expectError(
        await f.post(`/tickets/${ticketId}/attachments?project=alpha`, form(PNG, 'lost.png')),
        503,
        'File storage is unavailable',
      );
      expectError(
        await f.call('GET', `/attachments/${existing.id}/download?project=alpha`),
        503,
        'File storage is unavailable',
      );
    } finally {
      await f.s3.restore();
    }
    expect(await f.counts()).to.deep.equal(before);
  });

  it('answers 400 to a form cut short inside the file part (once crashed the gateway), and keeps serving', async () => {
    const ticketId = await f.createTicket();
    const path = `/tickets/${ticketId}/attachments?project=alpha`;
    const before = await f.counts();
    const opening =
      '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n';
    for (const body of [
      `${opening}hello world`, // the reported 90-byte body: no closing boundary
      `${opening}${'x'.repeat(200_000)}`, // cut short after many chunks went to the service
      `${opening}hello\r\n--XY`, // cut inside the closing boundary
      '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Ty', // inside the headers
    ]) {
      for (let round = 0; round < 3; round += 1) {
        expectError(
          await f.post(path, body, { contentType: 'multipart/form-data; boundary=XYZ' }),
          400,
          'Malformed multipart/form-data body',
        );
      }
    }
    expect(await f.counts()).to.deep.equal(before);
    expect((await f.upload(ticketId, PNG, 'after.png')).size_bytes).to.equal(PNG.length);
  });

  it('answers bad input with 400/403/404/422, never 500', async () => {
    const ticketId = await f.createTicket();
    const path = `/tickets/${ticketId}/attachments?project=alpha`;
    const before = await f.counts();
    const fileRequired = { file: ['File is required (multipart/form-data field "file")'] };
    const onlyOne = { file: ['Exactly one file is allowed, in the form field "file"'] };

    const textOnly = new FormData();
    textOnly.append('file', 'just text, no file');
    expectError(await f.post(path, textOnly), 422, 'Validation failed', fileRequired);

    const two = new FormData();
    two.append('file', new Blob([PNG]), 'a.png');
    two.append('file', new Blob([PNG]), 'b.png');
    expectError(await f.post(path, two), 422, 'Validation failed', onlyOne);

    const elsewhere = new FormData();
    elsewhere.append('upload', new Blob([PNG]), 'a.png');
    expectError(await f.post(path, elsewhere), 422, 'Validation failed', onlyOne);

    expectError(
      await f.post(path, form(Buffer.alloc(0), 'empty.txt', 'text/plain')),
      422,
      'Validation failed',
      {
        file: ['File is empty'],
      },
    );
    const notMultipart = { file: ['Send the file as multipart/form-data in the field "file"'] };
    expectError(
      await f.post(path, '{"file":"x"}', { contentType: 'application/json' }),
      422,
      'Validation failed',
      notMultipart,
    );
    expectError(await f.post(path, ''), 422, 'Validation failed', notMultipart);
    expectError(
      await f.post(path, 'garbage without parts', { contentType: 'multipart/form-data; boundary=xyz' }),
      400,
      'Malformed multipart/form-data body',
    );
    expectError(
      await f.post(path, 'x', { contentType: 'multipart/form-data' }),
      400,
      'Malformed multipart/form-data body',
    );

    expectError(
      await f.post(`/tickets/abc/attachments?project=alpha`, form(PNG, 'a.png')),
      400,
      'Invalid ticket id',
    );
    expectError(
      await f.post(`/tickets/99999/attachments?project=alpha`, form(PNG, 'a.png')),
      404,
      'Ticket not found',
    );
    expectError(await f.call('GET', '/tickets/0/attachments?project=alpha'), 400, 'Invalid ticket id');
    for (const bad of ['0', '-1', 'abc', '99999999999']) {
      expectError(
        await f.call('GET', `/attachments/${bad}/download?project=alpha`),
        400,
        'Invalid attachment id',
      );
      expectError(await f.call('DELETE', `/attachments/${bad}?project=alpha`), 400, 'Invalid attachment id');
    }
    expectError(
      await f.call('GET', '/attachments/424242/download?project=alpha'),
      404,
      'Attachment not found',
    );
    expectError(
      await f.post(path, form(PNG, 'a.png'), { key: f.keys.readOnly }),
      403,
      'Missing required scope: tickets:write',
    );
    expectError(
      await f.call('DELETE', `/attachments/1?project=alpha`, f.keys.readOnly),
      403,
      'Missing required scope: tickets:write',
    );
    expectError(
      await f.post(`/tickets/${ticketId}/attachments`, form(PNG, 'a.png')),
      400,
      'Project ID is required.',
    );
    expectError(
      await f.call('PUT', `/attachments/1?project=alpha`),
      405,
      `Method PUT not allowed on /v1/attachments/1`,
    );
    expect(await f.counts()).to.deep.equal(before);
  });
});
