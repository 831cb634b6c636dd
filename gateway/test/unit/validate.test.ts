import { expect } from 'chai';
import { z } from 'zod';
import type { AppError } from '@tix/kit';
import {
  issueKey,
  parseBody,
  parseParams,
  parseQuery,
  validate,
  validationErrorsOf,
} from '../../src/http/validate.js';
import { codePointLength } from '@tix/protos';
import { fakeRequest, run } from '../support/fake-http.js';
import { thrownAppError as caught } from '../support/refusals.js';

const params = z.object({
  id: z
    .string()
    .regex(/^[0-9]+$/, 'Invalid thing id')
    .transform(Number),
});
const query = z.object({
  page: z
    .string()
    .regex(/^[0-9]+$/, 'page must be digits')
    .transform(Number)
    .default(1),
  size: z
    .string()
    .regex(/^[0-9]+$/, 'size must be digits')
    .optional(),
});
const body = z.object(
  {
    name: z.string({ error: 'Name is required' }).min(1, 'Name cannot be empty'),
    meta: z.object({ colour: z.string({ error: 'Colour must be a string' }) }).optional(),
    tags: z.array(z.string({ error: 'Each tag must be a string' })).optional(),
  },
  { error: 'Request body must be a JSON object' },
);

describe('validate: zod issues -> the envelope', () => {
  it('keys issues by path: objects joined with dots, array items as [i], the value itself as root', () => {
    expect(issueKey([], 'body')).to.equal('body');
    expect(issueKey(['title'], 'body')).to.equal('title');
    expect(issueKey(['custom_fields', 'severity'], 'body')).to.equal('custom_fields.severity');
    expect(issueKey(['tags', 2], 'body')).to.equal('tags[2]');
    expect(issueKey(['items', 0, 'name'], 'body')).to.equal('items[0].name');
  });

  it('collects each message once per field, in order', () => {
    const issues = [
      { code: 'custom', path: ['a'], message: 'one', input: 1 },
      { code: 'custom', path: ['a'], message: 'one', input: 1 },
      { code: 'custom', path: ['a'], message: 'two', input: 1 },
      { code: 'custom', path: [], message: 'root', input: 1 },
    ] as z.core.$ZodIssue[];
    expect(validationErrorsOf(issues, 'body')).to.deep.equal({ a: ['one', 'two'], body: ['root'] });
  });

  it('path parameters: 400 with the schema message and no validation_errors', () => {
    expect(parseParams(params, { id: '12' })).to.deep.equal({ id: 12 });
    const error = caught(() => parseParams(params, { id: 'x' }));
    expect([error.httpStatus, error.message, error.validationErrors]).to.deep.equal([
      400,
      'Invalid thing id',
      undefined,
    ]);
  });

  it('query: 400 `Invalid <names>` with validation_errors per parameter; unknown ones dropped', () => {
    expect(parseQuery(query, { size: '3', other: 'x' })).to.deep.equal({ page: 1, size: '3' });
    const error = caught(() => parseQuery(query, { page: 'a', size: ['1', '2'] }));
    expect([error.httpStatus, error.message, error.validationErrors]).to.deep.equal([
      400,
      'Invalid page, size',
      { page: ['page must be digits'], size: ['Invalid input: expected string, received array'] },
    ]);
  });

  it('body: 422 with validation_errors per field; an absent body counts as {}', () => {
    const missing = caught(() => parseBody(body, undefined));
    expect([missing.httpStatus, missing.message, missing.validationErrors]).to.deep.equal([
      422,
      'Validation failed',
      { name: ['Name is required'] },
    ]);
    const nested = caught(() => parseBody(body, { name: '', meta: { colour: 1 }, tags: ['a', 2] }));
    expect(nested.validationErrors).to.deep.equal({
      name: ['Name cannot be empty'],
      'meta.colour': ['Colour must be a string'],
      'tags[1]': ['Each tag must be a string'],
    });
    for (const value of [null, [], 5, 'text']) {
      expect(caught(() => parseBody(body, value)).validationErrors).to.deep.equal({
        body: ['Request body must be a JSON object'],
      });
    }
  });

  it('the middleware replaces params, query (even behind a getter) and body with the parsed values', async () => {
    const request = fakeRequest({ params: { id: '7' }, body: { name: 'n', extra: true } } as never);
    // Express 5 defines query as a getter that re-parses the URL on every read.
    Object.defineProperty(request, 'query', {
      get: () => ({ page: '3' }),
      configurable: true,
      enumerable: true,
    });
    const outcome = await run(validate({ params, query, body }), request);
    expect([outcome.nextCalled, outcome.error]).to.deep.equal([true, undefined]);
    expect(request.params).to.deep.equal({ id: 7 });
    expect(request.query).to.deep.equal({ page: 3 });
    expect(request.body).to.deep.equal({ name: 'n' });
  });

  it('reports only the first failing part: params, then query, then body', async () => {
    const request = fakeRequest({ params: { id: 'x' }, query: { page: 'y' }, body: {} } as never);
    const outcome = await run(validate({ params, query, body }), request);
    expect((outcome.error as AppError).message).to.equal('Invalid thing id');
    const second = await run(
      validate({ query, body }),
      fakeRequest({ query: { page: 'y' }, body: {} } as never),
    );
    expect((second.error as AppError).httpStatus).to.equal(400);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(codePointLength('abc')).to.equal(3);
    expect(codePointLength('🔥🔥')).to.equal(2);
    expect(codePointLength('a\ud800b')).to.equal(3); // a lone surrogate counts once
    expect(codePointLength('')).to.equal(0);
  });
});
