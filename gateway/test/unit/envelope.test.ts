import { expect } from 'chai';
import type { Response } from 'express';
import { AppError } from '@tix/kit';
import { sendData, sendError } from '../../src/http/envelope.js';
import { FakeResponse } from '../support/fake-http.js';

describe('envelope', () => {
  it('sendData writes { ok: true, data } as JSON with its length', () => {
    const response = new FakeResponse();
    sendData(response as unknown as Response, { name: 'Zoë' }, 201);
    expect(response.statusCode).to.equal(201);
    expect(response.json()).to.deep.equal({ ok: true, data: { name: 'Zoë' } });
    expect(response.getHeader('Content-Type')).to.equal('application/json; charset=utf-8');
    expect(response.getHeader('Content-Length')).to.equal(Buffer.byteLength(response.body!));
  });

  it('sendError writes the kit error envelope, plus any extra top-level detail', () => {
    const response = new FakeResponse();
    sendError(response as unknown as Response, AppError.notFound('Ticket not found'));
    expect(response.statusCode).to.equal(404);
    expect(response.json()).to.deep.equal({ ok: false, error: { code: 404, message: 'Ticket not found' } });

    const withDetail = new FakeResponse();
    sendError(withDetail as unknown as Response, AppError.unavailable('Not ready'), {
      data: { status: 'not_ready' },
    });
    expect(withDetail.json()).to.deep.equal({
      ok: false,
      error: { code: 503, message: 'Not ready' },
      data: { status: 'not_ready' },
    });
  });

  it('never shows the message of an internal error', () => {
    const response = new FakeResponse();
    sendError(response as unknown as Response, AppError.internal('stack trace with secrets'));
    expect(response.json()).to.deep.equal({
      ok: false,
      error: { code: 500, message: 'Internal server error' },
    });
  });
});
