import { expect } from 'chai';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { z } from 'zod';
import { confidenceLabel, type ai } from '@tix/protos';
import { COMPONENT_SCHEMAS } from '../../src/resources/components.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { EXAMPLES } from '../../src/resources/examples.js';
import {
  presentAnswer,
  presentAvailability,
  presentPrediction,
  presentSearchPage,
  presentSuggestReplyResult,
} from '../../src/resources/presenters/assistant.js';

const provider: ai.Provider__Output = { kind: 'retrieval', model: 'tix-retrieval-1', external: false };
const source: ai.Source__Output = {
  ticket_id: 17,
  ticket_number: 'SUP-17',
  title: 'Reset mail',
  similarity: 0.78,
};
const sourceJson = {
  ticket_id: 17,
  ticket_number: 'SUP-17',
  title: 'Reset mail',
  similarity: 0.78,
  comment_id: null,
  resolved_at: null,
};

const availability = (overrides: Partial<ai.Availability__Output> = {}): ai.Availability__Output => ({
  available: true,
  provider: { ...provider, kind: 'openai', model: 'llama3', external: true, fallback: 'retrieval' },
  resolved_tickets: 1284,
  min_required: 10,
  autonomy_killed: false,
  ...overrides,
});

const budget = (remaining: number) => ({
  allowed: remaining > 0,
  limit: 30,
  remaining,
  resetAtMs: Date.parse('2026-05-02T11:00:00.000Z'),
  nowMs: Date.parse('2026-05-02T10:00:00.000Z'),
  windowMs: 3_600_000,
});

describe('assistant presenters', () => {
  it('label confidence by one rule: high from 0.85, medium from 0.6, low below', () => {
    const labels = [0, 0.59, 0.6, 0.84, 0.85, 1].map(confidenceLabel);
    expect(labels).to.deep.equal(['low', 'low', 'medium', 'medium', 'high', 'high']);
  });

  it('a suggestion: int64 id as a number, absent optionals as null, the label from the confidence', () => {
    const presented = presentSuggestReplyResult({
      suggestion: {
        id: '5012',
        project_id: 1,
        ticket_id: 42,
        content: 'Hello',
        content_html: '<p>Hello</p>',
        is_internal: false,
        confidence: 0.86,
        confidence_label: 'medium',
        provider,
        sources: [
          source,
          { ...source, ticket_id: 18, comment_id: 311, resolved_at: '2026-04-11T09:00:00.000Z' },
        ],
        redactions: 2,
        generated_at: '2026-05-02T10:00:00.000Z',
        tone: 'friendly',
      },
      min_confidence: 0.35,
    });
    expect(presented).to.deep.equal({
      suggestion: {
        id: 5012,
        project_id: 1,
        ticket_id: 42,
        content: 'Hello',
        content_html: '<p>Hello</p>',
        is_internal: false,
        confidence: 0.86,
        confidence_label: 'high',
        provider,
        sources: [
          sourceJson,
          { ...sourceJson, ticket_id: 18, comment_id: 311, resolved_at: '2026-04-11T09:00:00.000Z' },
        ],
        redactions: 2,
        generated_at: '2026-05-02T10:00:00.000Z',
        tone: 'friendly',
      },
    });
  });

  it('no suggestion: null, the reason and the floor', () => {
    expect(presentSuggestReplyResult({ reason: 'insufficient_history', min_confidence: 0.5 })).to.deep.equal({
      suggestion: null,
      reason: 'insufficient_history',
      min_confidence: 0.5,
    });
  });

  it("availability: the provider with its fallback, autonomy active, the caller's quota", () => {
    expect(presentAvailability(availability(), budget(27))).to.deep.equal({
      available: true,
      reason: null,
      provider: { kind: 'openai', model: 'llama3', external: true, fallback: 'retrieval' },
      autonomy: 'active',
      rate_limit: { limit: 30, remaining: 27, reset_at: '2026-05-02T11:00:00.000Z', window_seconds: 3600 },
      corpus: { resolved_tickets: 1284, min_required: 10 },
    });
    const withoutLimits = presentAvailability(availability({ provider }), null);
    expect([withoutLimits.provider.fallback, withoutLimits.rate_limit]).to.deep.equal([null, null]);
  });

  it('availability: autonomy killed while the ai service reports a kill switch; suggestions stay available', () => {
    expect(presentAvailability(availability({ autonomy_killed: true }), null)).to.deep.include({
      available: true,
      autonomy: 'killed',
    });
  });

  it("availability: a spent quota is rate_limited, after the service's own reason", () => {
    expect(presentAvailability(availability(), budget(0))).to.deep.include({
      available: false,
      reason: 'rate_limited',
    });
    const noHistory = availability({ available: false, reason: 'insufficient_history', resolved_tickets: 3 });
    for (const remaining of [0, 5]) {
      expect(presentAvailability(noHistory, budget(remaining))).to.deep.include({
        available: false,
        reason: 'insufficient_history',
      });
    }
  });

  it('search results: comment_id null unless a comment matched; pagination as is', () => {
    const hit: ai.SearchHit__Output = {
      ticket_id: 42,
      project_id: 1,
      ticket_number: 'SUP-42',
      title: 'Printer on fire',
      status: 'open',
      rank: 0.5,
      matched_in: 'comment',
      snippet_html: 'the <mark>printer</mark>',
      comment_id: 7,
    };
    const pagination = { total: 2, page: 1, per_page: 50, total_pages: 1 };
    const page = presentSearchPage({
      results: [hit, { ...hit, comment_id: undefined, matched_in: 'title' }],
      pagination,
    });
    expect(page.pagination).to.deep.equal(pagination);
    expect(page.results.map((result) => [result.matched_in, result.comment_id])).to.deep.equal([
      ['comment', 7],
      ['title', null],
    ]);
    expect(() => presentSearchPage({ results: [], pagination: null })).to.throw('without pagination');
  });

  it('an answer: null answer and reason when nothing fits, the label from the confidence', () => {
    expect(
      presentAnswer({ confidence: 0.1, provider, sources: [], reason: 'no_confident_match', redactions: 0 }),
    ).to.deep.equal({
      answer: null,
      confidence: 0.1,
      confidence_label: 'low',
      provider,
      sources: [],
      reason: 'no_confident_match',
      redactions: 0,
    });
    const answered = presentAnswer({
      answer: 'Restart it.',
      confidence: 0.7,
      provider,
      sources: [source],
      redactions: 1,
    });
    expect(answered).to.deep.include({ answer: 'Restart it.', confidence_label: 'medium', reason: null });
    expect(() => presentAnswer({ confidence: 0, provider: null, sources: [], redactions: 0 })).to.throw(
      'provider',
    );
  });

  it('a prediction: its value parsed from JSON, outcome null until accepted, held_back null unless held back', () => {
    const prediction: ai.Prediction__Output = {
      id: '981',
      project_id: 1,
      ticket_id: 42,
      action_type: 'add_tags',
      value_json: '["login","safari"]',
      confidence: 0.91,
      rationale: 'Similar tickets were tagged so',
      sources: [source],
      created_at: '2026-05-02T10:00:01.000Z',
    };
    expect(presentPrediction(prediction)).to.deep.equal({
      id: 981,
      action_type: 'add_tags',
      value: ['login', 'safari'],
      confidence: 0.91,
      confidence_label: 'high',
      rationale: 'Similar tickets were tagged so',
      sources: [sourceJson],
      created_at: '2026-05-02T10:00:01.000Z',
      outcome: null,
      held_back: null,
    });
    expect(
      presentPrediction({
        ...prediction,
        action_type: 'set_priority',
        value_json: '"low"',
        held_back: 'would_downgrade',
      }),
    ).to.deep.include({ value: 'low', held_back: 'would_downgrade' });
    const duplicate = presentPrediction({
      ...prediction,
      action_type: 'close_duplicate',
      value_json: '{"ticket_id":12}',
      outcome: 'accepted',
      outcome_at: '2026-05-02T10:05:00.000Z',
    });
    expect([duplicate.value, duplicate.outcome]).to.deep.equal([{ ticket_id: 12 }, 'accepted']);
    expect(() => presentPrediction({ ...prediction, id: '9007199254740993' })).to.throw(
      'sent 9007199254740993 as an integer',
    );
  });
});

describe('the assistant in the API description', () => {
  const document = buildOpenApiDocument() as unknown as OpenAPIV3_1.Document;
  const operation = (path: string, method: 'get' | 'post') => document.paths![path]![method]!;
  const statuses = (path: string, method: 'get' | 'post') =>
    Object.keys(operation(path, method).responses ?? {});

  it('has examples shaped exactly like their component schemas', () => {
    const pairs: [string, unknown][] = [
      ['AiProvider', EXAMPLES.aiProvider],
      ['Suggestion', EXAMPLES.suggestion],
      ['Prediction', EXAMPLES.prediction],
      ['SearchResult', EXAMPLES.searchResult],
      ['AiSource', EXAMPLES.suggestion.sources[0]],
    ];
    for (const [name, example] of pairs) {
      const schema = COMPONENT_SCHEMAS[name] as z.ZodObject;
      expect(schema.strict().safeParse(example).success, name).to.equal(true);
      expect(document.components!.schemas![name], name).to.not.equal(undefined);
    }
  });

  it('serves every route on the session host only, by role: agents for the assistant, anyone for search', () => {
    const routes: [string, 'get' | 'post', string][] = [
      ['/ai/suggest-reply', 'post', 'agent'],
      ['/ai/suggest-reply/availability', 'get', 'agent'],
      ['/ai/predictions', 'get', 'agent'],
      ['/ai/predictions/{id}/accept', 'post', 'agent'],
      ['/search/tickets', 'get', 'viewer'],
      ['/search/ai', 'get', 'viewer'],
    ];
    for (const [path, method, role] of routes) {
      const described = operation(path, method);
      expect(
        described.servers!.map((server) => server.url),
        path,
      ).to.deep.equal(['{app_url}/api']);
      expect(described.security![0]!.SessionCookie, path).to.deep.equal([role]);
      expect(statuses(path, method), path).to.include.members(['200', '401', '403', '429', '500', '503']);
    }
  });

  it('documents what each route can refuse', () => {
    expect(statuses('/ai/suggest-reply', 'post')).to.include.members([
      '400',
      '404',
      '413',
      '415',
      '422',
      '504',
    ]);
    expect(statuses('/ai/suggest-reply/availability', 'get')).to.include.members(['400', '404']);
    expect(statuses('/ai/predictions', 'get')).to.include.members(['400', '404']);
    expect(statuses('/ai/predictions/{id}/accept', 'post')).to.include.members(['400', '404']);
    // The project is optional for searches: 404 only for a project that does not exist.
    expect(statuses('/search/tickets', 'get')).to.include.members(['400', '404']);
    expect(statuses('/search/ai', 'get')).to.include.members(['400', '404', '504']);
    expect(document.components!.responses!.GatewayTimeout).to.not.equal(undefined);
  });
});
