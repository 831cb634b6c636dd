import { expect } from 'chai';
import type { Request, Response } from 'express';
import { AppError } from '@tix/kit';
import { errorHandler, toAppError } from '../../src/http/error-handler.js';
import { FakeResponse, fakeRequest, recordingLogger } from '../support/fake-http.js';

function bodyParserError(type: string, status: number, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`raw ${type}`), {
    type,
    status,
    statusCode: status,
    expose: true,
    ...extra,
  });
}

describe('toAppError', () => {
  it('keeps AppErrors as they are', () => {
    const error = AppError.validation({ title: ['Title is required'] });
    expect(toAppError(error)).to.equal(error);
  });

  it('maps body-parser failures to clear client errors', () => {
    const cases: [Error, number, string][] = [
      [bodyParserError('entity.parse.failed', 400), 400, 'Malformed JSON body'],
      [
        bodyParserError('entity.too.large', 413, { limit: 1048576 }),
        413,
        'Request body too large (limit 1048576 bytes)',
      ],
      [bodyParserError('encoding.unsupported', 415), 415, 'Unsupported content encoding'],
      [bodyParserError('charset.unsupported', 415), 415, 'Unsupported charset'],
      [bodyParserError('request.aborted', 400), 400, 'Request aborted'],
      [bodyParserError('request.size.invalid', 400), 400, 'Request body size does not match Content-Length'],
    ];
    for (const [error, status, message] of cases) {
      const mapped = toAppError(error);
      expect([mapped.httpStatus, mapped.message]).to.deep.equal([status, message]);
    }
  });

  it('keeps the status of other exposed client errors, with a generic message', () => {
    const mapped = toAppError(Object.assign(new Error('secret detail'), { status: 400, expose: true }));
    expect([mapped.httpStatus, mapped.message]).to.deep.equal([400, 'Invalid request']);
  });

  it('answers 400 to a path parameter with broken percent-encoding', () => {
    let thrown: unknown;
    try {
      decodeURIComponent('%E0%A4%A');
    } catch (error) {
      thrown = error;
    }
    const mapped = toAppError(thrown);
    expect([mapped.httpStatus, mapped.message]).to.deep.equal([
      400,
      'Malformed percent-encoding in the URL path',
    ]);
  });

  it('turns anything else into internal, keeping the cause for the log', () => {
    for (const error of [
      new TypeError('boom'),
      'a string',
      null,
      Object.assign(new Error('x'), { status: 500, expose: false }),
    ]) {
      const mapped = toAppError(error);
      expect(mapped.kind).to.equal('internal');
      expect(mapped.cause).to.equal(error);
    }
  });
});

describe('errorHandler', () => {
  const handle = (error: unknown, request: Request, response: FakeResponse) => {
    let passedOn: unknown;
    errorHandler()(error, request, response as unknown as Response, (value?: unknown) => {
      passedOn = value;
    });
    return passedOn;
  };

  it('renders the envelope and logs unexpected errors (with the request logger, which carries the correlation id)', () => {
    const logger = recordingLogger();
    const response = new FakeResponse();
    const cause = new TypeError('db password hunter2');
    handle(cause, fakeRequest({ log: logger }), response);
    expect(response.statusCode).to.equal(500);
    expect(response.json()).to.deep.equal({
      ok: false,
      error: { code: 500, message: 'Internal server error' },
    });
    expect(response.body).to.not.contain('hunter2');
    expect(logger.calls).to.deep.equal([
      { level: 'error', fields: { err: cause }, message: 'request failed' },
    ]);
  });

  it('renders validation errors and does not log client errors', () => {
    const logger = recordingLogger();
    const response = new FakeResponse();
    handle(AppError.validation({ title: ['Title is required'] }), fakeRequest({ log: logger }), response);
    expect(response.statusCode).to.equal(422);
    expect(response.json()).to.deep.equal({
      ok: false,
      error: { code: 422, message: 'Validation failed', validation_errors: { title: ['Title is required'] } },
    });
    expect(logger.calls).to.deep.equal([]);
  });

  it('warns about unavailable and slow dependencies', () => {
    const logger = recordingLogger();
    handle(
      new AppError('timeout', 'Service did not answer in time'),
      fakeRequest({ log: logger }),
      new FakeResponse(),
    );
    expect(logger.calls.map((call) => call.level)).to.deep.equal(['warn']);
  });

  it('passes the error on when the response already started', () => {
    const response = new FakeResponse();
    response.headersSent = true;
    const error = new Error('late');
    expect(handle(error, fakeRequest(), response)).to.equal(error);
  });
});
