import { expect } from 'chai';
import { parseBody, parseParams, parseQuery } from '../../src/http/validate.js';
import { defaultLimitsConfig } from '../../src/limits/config.js';
import { compileRoutes, matchRoute } from '../../src/limits/rate-limiter.js';
import { SUGGEST_REPLY_PATH } from '../../src/routes/app/assistant.js';
import {
  availabilityQuery,
  listPredictionsQuery,
  predictionIdParams,
  searchAiQuery,
  searchTicketsQuery,
  suggestReplyBody,
} from '../../src/routes/app/assistant.schemas.js';
import { bodyErrors as suggestReplyErrors, queryError, refusal as refused } from '../support/refusals.js';

const bodyErrors = (body: unknown) => suggestReplyErrors(suggestReplyBody, body);

describe('assistant route schemas', () => {
  it('POST /ai/suggest-reply: ticket_id, with tone neutral and 3 sources by default', () => {
    expect(parseBody(suggestReplyBody, { ticket_id: 42, extra: 'ignored' })).to.deep.equal({
      ticket_id: 42,
      tone: 'neutral',
      max_sources: 3,
    });
    expect(
      parseBody(suggestReplyBody, { ticket_id: 42, tone: 'formal', max_sources: 5, min_confidence: 0 }),
    ).to.deep.equal({ ticket_id: 42, tone: 'formal', max_sources: 5, min_confidence: 0 });
    expect(parseBody(suggestReplyBody, { ticket_id: 1, min_confidence: 1 }).min_confidence).to.equal(1);
  });

  it('POST /ai/suggest-reply: 422 naming each bad field', () => {
    expect(bodyErrors({})).to.deep.equal({ ticket_id: ['Ticket ID is required'] });
    expect(bodyErrors({ ticket_id: '42', tone: 'rude', max_sources: 6, min_confidence: 1.5 })).to.deep.equal({
      ticket_id: ['Ticket ID must be an integer'],
      tone: ['Tone must be one of neutral, friendly, formal'],
      max_sources: ['Max sources must be at most 5'],
      min_confidence: ['Min confidence must be a number from 0 to 1'],
    });
    expect(bodyErrors({ ticket_id: 0, max_sources: 0, min_confidence: -0.1 })).to.deep.equal({
      ticket_id: ['Ticket ID must be at least 1'],
      max_sources: ['Max sources must be at least 1'],
      min_confidence: ['Min confidence must be a number from 0 to 1'],
    });
    expect(bodyErrors({ ticket_id: 1.5, max_sources: 2.5, min_confidence: '0.5' })).to.have.all.keys(
      'ticket_id',
      'max_sources',
      'min_confidence',
    );
    expect(Object.keys(bodyErrors([1]) ?? {})).to.deep.equal(['body']);
  });

  it('GET /ai/suggest-reply/availability and /ai/predictions: ticket_id, optional and required', () => {
    expect(parseQuery(availabilityQuery, {})).to.deep.equal({});
    expect(parseQuery(availabilityQuery, { ticket_id: '42' })).to.deep.equal({ ticket_id: 42 });
    expect(parseQuery(listPredictionsQuery, { ticket_id: '42' })).to.deep.equal({ ticket_id: 42 });
    expect(queryError(listPredictionsQuery, {}).validationErrors).to.deep.equal({
      ticket_id: ['ticket_id must be a ticket id (a positive integer)'],
    });
    for (const ticket_id of ['0', '-1', 'SUP-42', '2147483648', ['1', '2']]) {
      expect(queryError(availabilityQuery, { ticket_id }).message, String(ticket_id)).to.equal(
        'Invalid ticket_id',
      );
    }
  });

  it('POST /ai/predictions/{id}/accept: the id as a path id', () => {
    expect(parseParams(predictionIdParams, { id: '981' })).to.deep.equal({ id: 981 });
    for (const id of ['0', '01', 'x', '2147483648']) {
      expect(refused(() => parseParams(predictionIdParams, { id }), 400).message).to.equal(
        'Invalid prediction id',
      );
    }
  });

  it('GET /search/tickets: q of 1 to 200 characters, trimmed, and the usual pages', () => {
    expect(parseQuery(searchTicketsQuery, { q: '  printer fire ' })).to.deep.equal({
      q: 'printer fire',
      page: 1,
      per_page: 50,
    });
    expect(parseQuery(searchTicketsQuery, { q: 'ACME-17', page: '2', per_page: '10' })).to.deep.equal({
      q: 'ACME-17',
      page: 2,
      per_page: 10,
    });
    // 200 characters, an emoji counting one.
    expect(parseQuery(searchTicketsQuery, { q: `${'x'.repeat(199)}😀` }).q).to.have.length(201);
    for (const q of [undefined, '', '   ', 'x'.repeat(201), ['a', 'b']]) {
      expect(queryError(searchTicketsQuery, { q }).validationErrors, String(q)).to.deep.equal({
        q: ['q must be 1 to 200 characters'],
      });
    }
    for (const q of ['a\u0000b', 'a\u001bb', '\ud800x']) {
      expect(queryError(searchTicketsQuery, { q }).validationErrors).to.deep.equal({
        q: ['q must not contain control characters'],
      });
    }
    expect(queryError(searchTicketsQuery, { q: 'x', per_page: '101' }).message).to.equal('Invalid per_page');
  });

  it('GET /search/ai: a question of 3 to 500 characters, max_sources 1 to 5 (default 3)', () => {
    expect(parseQuery(searchAiQuery, { q: 'How do I\nreset my password?' })).to.deep.equal({
      q: 'How do I\nreset my password?',
      max_sources: 3,
    });
    expect(parseQuery(searchAiQuery, { q: 'vpn', max_sources: '5' })).to.deep.equal({
      q: 'vpn',
      max_sources: 5,
    });
    for (const q of ['', ' ab ', 'x'.repeat(501)]) {
      expect(queryError(searchAiQuery, { q }).validationErrors, q).to.deep.equal({
        q: ['q must be 3 to 500 characters'],
      });
    }
    for (const max_sources of ['0', '6', 'all']) {
      expect(queryError(searchAiQuery, { q: 'vpn', max_sources }).message).to.equal('Invalid max_sources');
    }
  });

  it("fall under the spec's rate limit rows: 30 suggestions an hour, /search/* 10 a minute, /search/ai 60 an hour", () => {
    const routes = compileRoutes(defaultLimitsConfig().routes);
    expect(matchRoute(routes, SUGGEST_REPLY_PATH)).to.deep.include({ limit: 30, windowMs: 3_600_000 });
    expect(matchRoute(routes, '/search/tickets')).to.deep.include({ limit: 10, windowMs: 60_000 });
    expect(matchRoute(routes, '/search/ai')).to.deep.include({ limit: 60, windowMs: 3_600_000 });
    // Asking about the quota spends none of it (the session's bucket counts it).
    expect(matchRoute(routes, `${SUGGEST_REPLY_PATH}/availability`)).to.equal(undefined);
    expect(matchRoute(routes, '/ai/predictions')).to.equal(undefined);
  });
});
