/**
 * The assistant and search routes against the real lookup, ticket and ai services (fresh databases).
 * The tickets asked about are created through the gateway; the ai service's corpus is fed their
 * events, and those of resolved tickets, as its consumer would (apply()), so each test knows exactly
 * what the corpus holds. The quota is checked on a second gateway with the limits wired (Redis).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { suiteFixture } from '@tix/kit/testing';
import { confidenceLabel, type DomainEvent, type EventType } from '@tix/protos';
import { startTestAiServer } from '@tix/ai-service/testing';
import { startTestTicketServer } from '@tix/ticket-service/testing';
import { deleteRedisKeys, startLimitsGateway, type LimitsGateway } from '../support/limits-gateway.js';
import { bearer, request, sendJson, signedInBrowser, type JsonResponse } from '../support/test-gateway.js';
import { apiKeyMaker, createAlphaAndBeta, createDefaultTypes } from '../support/lookup-seed.js';
import { startRealServices } from '../support/real-services.js';

const PASSWORD = 'assistant routes password';
/** Resolved tickets live only in the corpus, under ids the ticket service will not reach here. */
const CORPUS_IDS_FROM = 100_000;

describe('assistant routes + real lookup, ticket and ai services (fresh databases)', function () {
  this.timeout(90_000);
  const ids = { alpha: 0, beta: 0, agent: 0 };
  const types: Record<string, number> = {};
  let adminKey = '';
  let agent: Record<string, string>;
  let viewer: Record<string, string>;
  let nextCorpusId = CORPUS_IDS_FROM;
  let nextCommentId = CORPUS_IDS_FROM;

  const fleet = suiteFixture(() =>
    startRealServices({
      label: 'gateway_assistant',
      seed: async (admin) => {
        Object.assign(ids, await createAlphaAndBeta(admin));
        Object.assign(
          types,
          await createDefaultTypes(admin, ['alpha', 'beta'], { name: 'Question', slug: 'question' }),
        );
        await admin.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'admin' });
        ids.agent = (
          await admin.CreateUser({ name: 'Aga', email: 'aga@example.com', role: 'agent', password: PASSWORD })
        ).id;
        await admin.CreateUser({ name: 'Vic', email: 'vic@example.com', role: 'viewer', password: PASSWORD });
        const key = apiKeyMaker(admin, 'ada@example.com', () => 'seed');
        adminKey = await key(['tickets:read', 'tickets:write']);
      },
      peers: {
        tickets: ({ lookup }) => startTestTicketServer({ lookupAddress: lookup, label: 'gateway_assistant' }),
        ai: ({ lookup, tickets }) =>
          startTestAiServer({ lookupAddress: lookup, ticketsAddress: tickets, label: 'gateway_assistant' }),
      },
    }),
  );

  const event = (
    type: EventType,
    data: Record<string, unknown>,
    writeTypes: EventType[] = [type],
  ): DomainEvent => ({
    id: randomUUID(),
    type,
    occurred_at: new Date().toISOString(),
    source: type.startsWith('comment.') ? 'comments' : 'tickets',
    project_id: data.project_id as number,
    actor: { kind: 'user', user_id: ids.agent, api_key_id: null },
    changes: {},
    write_types: writeTypes,
    data,
  });

  const comment = (ticket: { id: number; project_id: number }, content: string, isInternal: boolean) =>
    fleet.ai.apply({
      ...event('comment.created', {
        id: nextCommentId++,
        ticket_id: ticket.id,
        user_id: ids.agent,
        content,
        content_html: null,
        is_internal: isInternal,
        created_at: new Date(Date.now() - 1_800_000).toISOString(),
        updated_at: new Date(Date.now() - 1_800_000).toISOString(),
      }),
      project_id: ticket.project_id,
    });

  /** A ticket answered publicly by an agent and closed as resolved, in the corpus only. */
  async function resolved(
    project: 'alpha' | 'beta',
    options: { title: string; description: string; reply: string; internalNote?: string },
  ): Promise<void> {
    const id = nextCorpusId++;
    const created = {
      id,
      project_id: ids[project],
      ticket_type_id: types[project],
      ticket_number: `${project === 'alpha' ? 'ALP' : 'BET'}-${id}`,
      title: options.title,
      description: options.description,
      status: 'open',
      priority: 'low',
      assigned_to: null,
      created_by: 1,
      tags: ['billing'],
      resolution_type: null,
      merged_into_id: null,
      version: 1,
      created_at: new Date(Date.now() - 3_600_000).toISOString(),
      updated_at: new Date(Date.now() - 3_600_000).toISOString(),
    };
    await fleet.ai.apply(event('ticket.created', created));
    if (options.internalNote) await comment(created, options.internalNote, true);
    await comment(created, options.reply, false);
    const closed = {
      ...created,
      status: 'closed',
      resolution_type: 'resolved',
      assigned_to: ids.agent,
      version: 2,
      // Closed after the reply: the reply that resolved it is the last one written before.
      updated_at: new Date().toISOString(),
    };
    await fleet.ai.apply(
      event('ticket.updated', closed, ['ticket.updated', 'ticket.status_changed', 'ticket.assigned']),
    );
  }

  /** An open ticket created through the gateway, and its creation applied to the corpus. */
  async function open(project: 'alpha' | 'beta', title: string, description: string) {
    const created = await sendJson(
      `${fleet.gateway.apiUrl}/v1/tickets?project=${project}`,
      'POST',
      bearer(adminKey),
      {
        title,
        description,
        ticket_type_id: types[project],
      },
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const ticket = created.body.data.ticket as { id: number; project_id: number; ticket_number: string };
    await fleet.ai.apply(event('ticket.created', created.body.data.ticket));
    return ticket;
  }

  const app = (
    path: string,
    headers: Record<string, string>,
    init: { method?: string; body?: unknown; baseUrl?: string } = {},
  ): Promise<JsonResponse> =>
    sendJson(`${init.baseUrl ?? fleet.gateway.appUrl}/api${path}`, init.method ?? 'GET', headers, init.body);
  const suggest = (body: unknown, headers = agent, project = 'alpha') =>
    app(`/ai/suggest-reply?project=${project}`, headers, { method: 'POST', body });

  let resetTicket: { id: number; project_id: number; ticket_number: string };
  let vatTicket: { id: number; project_id: number; ticket_number: string };
  let betaTicket: { id: number; project_id: number; ticket_number: string };

  before(async () => {
    agent = await signedInBrowser(fleet.gateway.appUrl, 'aga@example.com', PASSWORD);
    viewer = await signedInBrowser(fleet.gateway.appUrl, 'vic@example.com', PASSWORD);

    for (let i = 0; i < 8; i += 1) {
      await resolved('alpha', {
        title: `Password reset email never arrives (${i})`,
        description: 'I requested a password reset but the reset email did not arrive in my inbox.',
        reply: `Hello Sam,\n\nThe reset email can take up to 10 minutes; please check the spam folder. Write to help${i}@example.com if not.`,
        internalNote: `SECRET-${i}: customer is on the legacy plan`,
      });
      await resolved('alpha', {
        title: `Invoice shows the wrong VAT number (${i})`,
        description: 'Our invoice lists an old VAT number for the company; please correct the invoice.',
        reply: 'Hi,\n\nWe corrected the VAT number; the next invoice will show it.',
      });
    }
    await resolved('beta', {
      title: 'Coffee machine shows a VAT warning',
      description: 'The coffee machine display says VAT.',
      reply: 'We reset the coffee machine.',
    });
    resetTicket = await open(
      'alpha',
      'Reset password mail not received',
      'The password reset email never arrived.',
    );
    vatTicket = await open('alpha', 'Wrong VAT number on my invoice', 'The invoice VAT number is outdated.');
    betaTicket = await open('beta', 'Password reset email missing', 'The reset email never arrived.');
  });

  describe('POST /api/ai/suggest-reply', () => {
    it('suggests a reply from resolved similar tickets, with sources, never quoting an internal note', async () => {
      const response = await suggest({ ticket_id: resetTicket.id, tone: 'friendly', max_sources: 2 });
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      const { suggestion } = response.body.data;
      expect(suggestion).to.include({ project_id: ids.alpha, ticket_id: resetTicket.id, is_internal: false });
      expect(suggestion).to.include({
        tone: 'friendly',
        confidence_label: confidenceLabel(suggestion.confidence),
      });
      expect(suggestion.id).to.be.a('number');
      expect(suggestion.content).to.match(/reset email can take up to 10 minutes/);
      expect(suggestion.content).to.not.match(/SECRET|legacy plan|@example\.com/);
      expect(suggestion.redactions).to.equal(1);
      expect(suggestion.provider).to.deep.equal({
        kind: 'retrieval',
        model: suggestion.provider.model,
        external: false,
      });
      expect(suggestion.sources).to.have.length(2);
      for (const source of suggestion.sources) {
        expect(source.title).to.match(/Password reset/);
        expect(source.ticket_number).to.match(/^ALP-\d+$/);
        expect(source.comment_id).to.be.a('number');
        expect(source.resolved_at).to.be.a('string');
      }
    });

    it('answers no suggestion, with the reason and the floor, below min_confidence', async () => {
      const response = await suggest({ ticket_id: resetTicket.id, min_confidence: 1 });
      expect(response.status).to.equal(200);
      expect(response.body.data).to.deep.equal({
        suggestion: null,
        reason: 'no_confident_match',
        min_confidence: 1,
      });
    });

    it('refuses: 401 signed out, 400 without a project, 404 a ticket of another project, 403 viewers, 422 bad bodies', async () => {
      expect(
        (await request(`${fleet.gateway.appUrl}/api/ai/suggest-reply?project=alpha`, { method: 'POST' }))
          .status,
      ).to.equal(401);
      const noProject = await app('/ai/suggest-reply', agent, {
        method: 'POST',
        body: { ticket_id: resetTicket.id },
      });
      expect([noProject.status, noProject.body.error.message]).to.deep.equal([
        400,
        'Project ID is required.',
      ]);
      for (const ticketId of [betaTicket.id, 2_147_483_000]) {
        const elsewhere = await suggest({ ticket_id: ticketId });
        expect([elsewhere.status, elsewhere.body.error.message]).to.deep.equal([404, 'Ticket not found']);
      }
      const viewing = await suggest({ ticket_id: resetTicket.id }, viewer);
      expect(viewing.status).to.equal(403);
      const bad = await suggest({ ticket_id: 'one', tone: 'rude', max_sources: 9, min_confidence: 2 });
      expect(bad.status).to.equal(422);
      expect(Object.keys(bad.body.error.validation_errors)).to.deep.equal([
        'ticket_id',
        'tone',
        'max_sources',
        'min_confidence',
      ]);
      const missing = await suggest({});
      expect(missing.body.error.validation_errors).to.deep.equal({ ticket_id: ['Ticket ID is required'] });
    });
  });

  describe('GET /api/ai/suggest-reply/availability', () => {
    it('reports the provider, the corpus and autonomy; no quota without rate limits', async () => {
      const response = await app(
        `/ai/suggest-reply/availability?project=alpha&ticket_id=${resetTicket.id}`,
        agent,
      );
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      expect(response.body.data).to.deep.equal({
        available: true,
        reason: null,
        provider: {
          kind: 'retrieval',
          model: response.body.data.provider.model,
          external: false,
          fallback: null,
        },
        autonomy: 'active',
        rate_limit: null,
        corpus: { resolved_tickets: 16, min_required: 10 },
      });
    });

    it('says why not: too little history in a project; 404 for a ticket of another project, 403 viewers', async () => {
      const beta = await app('/ai/suggest-reply/availability?project=beta', agent);
      expect(beta.body.data).to.deep.include({ available: false, reason: 'insufficient_history' });
      expect(beta.body.data.corpus).to.deep.equal({ resolved_tickets: 1, min_required: 10 });
      const elsewhere = await app(
        `/ai/suggest-reply/availability?project=alpha&ticket_id=${betaTicket.id}`,
        agent,
      );
      expect(elsewhere.status).to.equal(404);
      expect((await app('/ai/suggest-reply/availability?project=alpha', viewer)).status).to.equal(403);
      expect((await app('/ai/suggest-reply/availability?project=alpha&ticket_id=x', agent)).status).to.equal(
        400,
      );
    });
  });

  describe('the suggestion quota (a gateway with limits, in Redis)', () => {
    let limited: LimitsGateway;
    after(async () => {
      await limited?.close();
      if (limited) await deleteRedisKeys(limited.redisKeyPrefix);
    });

    it('30 suggestions an hour per caller, then 429 with Retry-After; availability reports the rest without spending it', async () => {
      limited = await startLimitsGateway({
        services: fleet.addresses,
      });
      const browser = await signedInBrowser(limited.appUrl, 'aga@example.com', PASSWORD);
      const availability = () =>
        app('/ai/suggest-reply/availability?project=alpha', browser, { baseUrl: limited.appUrl });
      const suggestOnce = () =>
        app('/ai/suggest-reply?project=alpha', browser, {
          method: 'POST',
          body: { ticket_id: resetTicket.id },
          baseUrl: limited.appUrl,
        });

      const fresh = (await availability()).body.data;
      expect(fresh.rate_limit).to.deep.include({ limit: 30, remaining: 30, window_seconds: 3600 });
      for (let i = 0; i < 3; i += 1) expect((await suggestOnce()).status).to.equal(200);
      for (let i = 0; i < 2; i += 1) {
        const asked = (await availability()).body.data;
        expect(asked).to.deep.include({ available: true, reason: null });
        expect(asked.rate_limit.remaining, 'asking spends nothing').to.equal(27);
        expect(Date.parse(asked.rate_limit.reset_at) - Date.now()).to.be.within(3_500_000, 3_600_000);
      }
      for (let i = 3; i < 30; i += 1) expect((await suggestOnce()).status).to.equal(200);
      const refused = await suggestOnce();
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('x-ratelimit-limit')).to.equal('30');
      expect(Number(refused.headers.get('retry-after'))).to.be.within(3_500, 3_600);
      const spent = (await availability()).body.data;
      expect(spent).to.deep.include({ available: false, reason: 'rate_limited' });
      expect(spent.rate_limit.remaining).to.equal(0);
    });
  });

  describe('GET /api/search/tickets', () => {
    it('finds tickets by words across every project, or in the one named, with highlighted snippets', async () => {
      const everywhere = await app('/search/tickets?q=VAT&per_page=50', viewer);
      expect(everywhere.status, JSON.stringify(everywhere.body)).to.equal(200);
      const projects = new Set(
        everywhere.body.data.results.map((result: { project_id: number }) => result.project_id),
      );
      expect([...projects].sort()).to.deep.equal([ids.alpha, ids.beta].sort());
      const alpha = await app('/search/tickets?q=VAT&project=alpha&per_page=5', viewer);
      expect(alpha.body.data.pagination).to.deep.equal({ total: 9, page: 1, per_page: 5, total_pages: 2 });
      const [first] = alpha.body.data.results;
      expect(first).to.have.all.keys(
        'ticket_id',
        'project_id',
        'ticket_number',
        'title',
        'status',
        'rank',
        'matched_in',
        'snippet_html',
        'comment_id',
      );
      expect(first.project_id).to.equal(ids.alpha);
      expect(first.snippet_html).to.match(/<mark>VAT<\/mark>/);
    });

    it('finds a ticket by its number, and words of internal notes (every signed-in role may read comments)', async () => {
      const byNumber = await app(`/search/tickets?q=${vatTicket.ticket_number.toLowerCase()}`, viewer);
      expect(
        byNumber.body.data.results.map((result: { ticket_id: number }) => result.ticket_id),
      ).to.deep.equal([vatTicket.id]);
      const note = await app('/search/tickets?q=legacy%20plan&project=alpha', viewer);
      expect(note.body.data.results[0]).to.include({ matched_in: 'comment' });
      expect(note.body.data.results[0].comment_id).to.be.a('number');
    });

    it('refuses a missing or overlong q and bad pages (400), an unknown project (404), strangers (401)', async () => {
      for (const query of ['', 'q=', `q=${'x'.repeat(201)}`, 'q=x&per_page=500', 'q=a%00b']) {
        expect((await app(`/search/tickets?${query}`, viewer)).status, query).to.equal(400);
      }
      expect((await app('/search/tickets?q=x&project=nope', viewer)).status).to.equal(404);
      expect((await request(`${fleet.gateway.appUrl}/api/search/tickets?q=x`)).status).to.equal(401);
    });
  });

  describe('GET /api/search/ai', () => {
    it('answers a question from resolved tickets, with its sources and label', async () => {
      const response = await app(
        '/search/ai?q=how%20do%20we%20fix%20a%20wrong%20VAT%20number&max_sources=2&project=alpha',
        viewer,
      );
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      const answer = response.body.data;
      expect(answer.answer).to.match(/corrected the VAT number/);
      expect(answer.sources).to.have.length(2);
      expect(answer).to.include({ reason: null, confidence_label: confidenceLabel(answer.confidence) });
      expect(answer.provider).to.include({ kind: 'retrieval', external: false });
    });

    it('answers null with a reason when nothing is relevant; 400 for a question under 3 characters', async () => {
      const response = await app('/search/ai?q=zebra%20xylophone%20quantum', viewer);
      expect(response.status).to.equal(200);
      expect(response.body.data).to.deep.include({ answer: null, sources: [] });
      expect(response.body.data.reason).to.be.a('string');
      expect((await app('/search/ai?q=ab', viewer)).status).to.equal(400);
      expect((await app('/search/ai?q=vat&max_sources=6', viewer)).status).to.equal(400);
    });
  });

  describe('predictions', () => {
    it("lists a new ticket's shadow predictions; accepting one records it", async () => {
      const listed = await app(`/ai/predictions?project=alpha&ticket_id=${vatTicket.id}`, agent);
      expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
      const byType = Object.fromEntries(
        listed.body.data.predictions.map((prediction: { action_type: string }) => [
          prediction.action_type,
          prediction,
        ]),
      );
      expect(byType.add_tags).to.deep.include({ value: ['billing'], outcome: null });
      expect(byType.assign.value).to.equal(ids.agent);
      const priority = byType.set_priority;
      expect(priority).to.include({ value: 'low', confidence_label: confidenceLabel(priority.confidence) });
      expect(priority.id).to.be.a('number');
      expect(priority.sources[0]).to.have.all.keys(
        'ticket_id',
        'ticket_number',
        'title',
        'similarity',
        'comment_id',
        'resolved_at',
      );

      const accepted = await app(`/ai/predictions/${priority.id}/accept?project=alpha`, agent, {
        method: 'POST',
      });
      expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
      expect(accepted.body.data.prediction).to.deep.equal({ ...priority, outcome: 'accepted' });
      const again = await app(`/ai/predictions?project=alpha&ticket_id=${vatTicket.id}`, agent);
      expect(
        again.body.data.predictions.find((prediction: { id: number }) => prediction.id === priority.id)
          .outcome,
      ).to.equal('accepted');
    });

    it('404 for a ticket or prediction outside the project, 403 viewers, 400 bad ids', async () => {
      const elsewhere = await app(`/ai/predictions?project=alpha&ticket_id=${betaTicket.id}`, agent);
      expect([elsewhere.status, elsewhere.body.error.message]).to.deep.equal([404, 'Ticket not found']);
      const { predictions } = (await app(`/ai/predictions?project=alpha&ticket_id=${resetTicket.id}`, agent))
        .body.data;
      for (const path of [
        `/ai/predictions/${predictions[0].id}/accept?project=beta`,
        '/ai/predictions/2147483000/accept?project=alpha',
      ]) {
        const missing = await app(path, agent, { method: 'POST' });
        expect([missing.status, missing.body.error.message], path).to.deep.equal([
          404,
          'Prediction not found',
        ]);
      }
      expect(
        (await app(`/ai/predictions?project=alpha&ticket_id=${resetTicket.id}`, viewer)).status,
      ).to.equal(403);
      expect(
        (await app(`/ai/predictions/${predictions[0].id}/accept?project=alpha`, viewer, { method: 'POST' }))
          .status,
      ).to.equal(403);
      expect(
        (await app('/ai/predictions/0/accept?project=alpha', agent, { method: 'POST' })).status,
      ).to.equal(400);
      expect((await app('/ai/predictions?project=alpha', agent)).status).to.equal(400);
    });
  });
});
