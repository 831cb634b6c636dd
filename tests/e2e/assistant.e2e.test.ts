/**
 * The assistant through the real fleet (ticket and comment services -> outbox -> RabbitMQ -> ai
 * service -> gateway), as the console uses it: resolved tickets are written through the API (a
 * customer's ticket, an internal note holding a secret, an agent's public reply, a close as resolved);
 * then suggested replies with their sources (never the secret), availability and the hourly quota,
 * search by words, by ticket number and in internal notes, questions answered, predictions listed and
 * accepted, and every refusal (401, 403 by role, 404 for another project's ticket, 400, 422, 429).
 *
 * Tickets reach the assistant's corpus asynchronously: every wait polls with a deadline. The shared
 * fleet's gateway may keep the spec's route limits (10 searches a minute, 30 suggestions an hour per
 * session), so each search test signs in afresh; the 429 after 30 suggestions is checked on a gateway
 * process of this suite's own, at the spec's defaults (as limits.e2e.test.ts does).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import {
  createComment,
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
} from '../support/fixtures.js';
import { fleetModelServer } from '../support/fleet.js';
import { request, type ApiResponse } from '../support/http.js';
import { signIn, type BrowserSession } from '../support/session.js';
import { startSpecLimitsGateway, type SpecLimitsGateway } from '../support/spec-limits-gateway.js';

const PASSWORD = 'assistant e2e passphrase';
/** How long a write may take to reach the assistant's corpus. */
const ARRIVAL_MS = 20_000;
const SECRET = `SECRET${randomBytes(3).toString('hex')}`;

interface Ticket {
  id: number;
  project_id: number;
  ticket_number: string;
  title: string;
}

const labelOf = (confidence: number) => (confidence >= 0.85 ? 'high' : confidence >= 0.6 ? 'medium' : 'low');

describe('the assistant through the fleet', function () {
  this.timeout(120_000);
  let project: ProjectFixture;
  let other: ProjectFixture;
  /** The customer files tickets; the agent answers and closes them (both with keys of the project). */
  let customerKey: string;
  let agentKey: string;
  let agentEmail: string;
  let agent: BrowserSession;
  let viewer: BrowserSession;
  let viewerEmail: string;
  let openTicket: Ticket;
  let vatTicket: Ticket;
  let otherTicket: Ticket;
  let typeId: number;
  const resolvedTickets: Ticket[] = [];

  const inProject = (route: string, slug = project.slug) =>
    `${route}${route.includes('?') ? '&' : '?'}project=${slug}`;
  const suggest = (body: unknown, session = agent, slug = project.slug): Promise<ApiResponse> =>
    session.call('POST', inProject('/ai/suggest-reply', slug), body);
  const availability = (session = agent, query = ''): Promise<ApiResponse> =>
    session.call('GET', inProject(`/ai/suggest-reply/availability${query}`));
  const predictionsOf = (ticket: Ticket, session = agent): Promise<ApiResponse> =>
    session.call('GET', inProject(`/ai/predictions?ticket_id=${ticket.id}`));

  /** A customer's ticket with an internal note holding the secret, answered by the agent, closed as resolved. */
  async function resolve(title: string, description: string, reply: string) {
    const ticket = await createTicket<Ticket>(customerKey, { ticket_type_id: typeId, title, description });
    await createComment(agentKey, ticket.id, {
      content: `${SECRET}: the customer is on the legacy plan`,
      is_internal: true,
    });
    await createComment(agentKey, ticket.id, { content: reply, is_internal: false });
    const closed = await request(`/v1/tickets/${ticket.id}/status`, {
      method: 'PATCH',
      key: agentKey,
      body: { status: 'closed', resolution_type: 'resolved' },
    });
    expect(closed.status, closed.text).to.equal(200);
    resolvedTickets.push(ticket);
  }

  /** Waits until the assistant has seen `ticket` (it records predictions for every new ticket). */
  const arrived = (ticket: Ticket) =>
    eventually(async () => {
      const response = await predictionsOf(ticket);
      return response.status === 200 && response.body.data.predictions.length > 0;
    }, ARRIVAL_MS);

  before(async () => {
    project = await createProject();
    other = await createProject();
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    const otherTypeId = (await createTicketType(other.slug, { isDefault: true })).id;
    customerKey = (await createKey({ project: project.slug })).key;
    agentKey = (await createKey({ project: project.slug })).key;
    const otherKey = (await createKey({ project: other.slug })).key;
    agentEmail = (await createUser('agent', { password: PASSWORD })).email;
    viewerEmail = (await createUser('viewer', { password: PASSWORD })).email;
    agent = await signIn(agentEmail, PASSWORD);
    viewer = await signIn(viewerEmail, PASSWORD);

    for (let i = 0; i < 6; i += 1) {
      await resolve(
        `Password reset email never arrives (${i})`,
        'I requested a password reset but the reset email did not arrive in my inbox.',
        `Hello Sam,\n\nThe reset email can take up to 10 minutes; please check the spam folder. Write to help${i}@example.com if not.`,
      );
      await resolve(
        `Invoice shows the wrong VAT number (${i})`,
        'Our invoice lists an old VAT number for the company; please correct the invoice.',
        'Hi,\n\nWe corrected the VAT number; the next invoice will show it.',
      );
    }
    openTicket = await createTicket<Ticket>(customerKey, {
      ticket_type_id: typeId,
      title: 'Reset password mail not received',
      description: 'The password reset email never arrived.',
    });
    vatTicket = await createTicket<Ticket>(customerKey, {
      ticket_type_id: typeId,
      title: 'Wrong VAT number on my invoice',
      description: 'The invoice VAT number is outdated.',
    });
    otherTicket = await createTicket<Ticket>(otherKey, {
      ticket_type_id: otherTypeId,
      title: 'Coffee machine shows a VAT warning',
      description: 'The VAT warning will not go away.',
    });

    // Every resolved ticket in the corpus, with its reply; the open ones seen.
    await eventually(async () => {
      const response = await availability();
      return response.status === 200 && response.body.data.corpus.resolved_tickets === resolvedTickets.length;
    }, ARRIVAL_MS);
    await arrived(openTicket);
    await arrived(vatTicket);
  });

  describe('POST /api/ai/suggest-reply', () => {
    it('suggests the reply that resolved similar tickets, with its sources, in each tone, never an internal note', async () => {
      for (const tone of ['neutral', 'friendly', 'formal']) {
        const response = await suggest({ ticket_id: openTicket.id, tone, max_sources: 3 });
        expect(response.status, response.text).to.equal(200);
        expect(response.text).to.not.include(SECRET);
        expect(response.text).to.not.include('legacy plan');
        const { suggestion } = response.body.data;
        expect(suggestion).to.include({
          project_id: project.id,
          ticket_id: openTicket.id,
          is_internal: false,
          tone,
          confidence_label: labelOf(suggestion.confidence),
        });
        expect(suggestion.id).to.be.a('number');
        expect(suggestion.content).to.match(/reset email can take up to 10 minutes/);
        expect(suggestion.content).to.not.match(/@example\.com/);
        expect(suggestion.redactions).to.be.greaterThan(0);
        // The fleet's model server fails by default: the suggestion comes from retrieval.
        expect(suggestion.provider).to.include({ kind: 'retrieval', external: false });
        expect(suggestion.sources).to.have.length(3);
        const resolvedIds = resolvedTickets.map((ticket) => ticket.id);
        for (const source of suggestion.sources) {
          expect(resolvedIds).to.include(source.ticket_id);
          expect(source.ticket_number.startsWith(`${project.prefix}-`)).to.equal(true);
          expect(source.title).to.match(/Password reset/);
          expect(source.comment_id).to.be.a('number');
          expect(source.resolved_at).to.be.a('string');
        }
      }
    });

    describe('with the model server the fleet is configured with', () => {
      afterEach(() => fleetModelServer().reset());

      it('uses its rewrite of the sources, sent public text only, keeping retrieval confidence', async () => {
        const model = fleetModelServer();
        model.behave({
          kind: 'reply',
          reply: 'Hello Jo,\n\nGive it ten minutes and look in the spam folder.',
        });
        const sent = model.prompts.length;
        const response = await suggest({ ticket_id: openTicket.id, tone: 'formal' });
        expect(response.status, response.text).to.equal(200);
        const { suggestion } = response.body.data;
        expect(suggestion.content).to.equal(
          'Dear customer,\n\nGive it ten minutes and look in the spam folder.',
        );
        expect(suggestion.provider).to.include({ kind: 'openai', model: 'fake-model', external: true });
        expect(suggestion.sources.length).to.be.greaterThan(0);
        const prompts = model.prompts.slice(sent).join('\n');
        expect(prompts).to.include(openTicket.title);
        expect(prompts).to.not.include(SECRET);
        expect(prompts).to.not.include('legacy plan');
      });

      for (const behaviour of [{ kind: 'fail' }, { kind: 'malformed' }, { kind: 'hang' }] as const) {
        it(`falls back to retrieval when it ${behaviour.kind === 'fail' ? 'fails' : behaviour.kind === 'hang' ? 'does not answer in time' : 'answers nonsense'}`, async () => {
          fleetModelServer().behave(behaviour);
          const response = await suggest({ ticket_id: openTicket.id });
          expect(response.status, response.text).to.equal(200);
          expect(response.body.data.suggestion.provider).to.include({ kind: 'retrieval', external: false });
          expect(response.body.data.suggestion.content).to.match(/reset email can take up to 10 minutes/);
        });
      }
    });

    it('answers no suggestion, with its reason and floor, when nothing is confident enough', async () => {
      const response = await suggest({ ticket_id: openTicket.id, min_confidence: 1 });
      expect(response.status, response.text).to.equal(200);
      expect(response.body.data).to.deep.equal({
        suggestion: null,
        reason: 'no_confident_match',
        min_confidence: 1,
      });
    });

    it("refuses: 401 signed out, 403 viewers, 400 without a project, 404 another project's ticket, 422 bad bodies", async () => {
      const signedOut = await request(inProject('/api/ai/suggest-reply'), {
        host: 'app',
        method: 'POST',
        body: { ticket_id: openTicket.id },
      });
      expect(signedOut.status).to.equal(401);
      const viewing = await suggest({ ticket_id: openTicket.id }, viewer);
      expect(viewing.status, viewing.text).to.equal(403);
      const noProject = await agent.call('POST', '/ai/suggest-reply', { ticket_id: openTicket.id });
      expect([noProject.status, noProject.body.error?.message]).to.deep.equal([
        400,
        'Project ID is required.',
      ]);
      for (const [ticketId, slug] of [
        [otherTicket.id, project.slug],
        [openTicket.id, other.slug],
      ] as const) {
        const elsewhere = await suggest({ ticket_id: ticketId }, agent, slug);
        expect([elsewhere.status, elsewhere.body.error?.message]).to.deep.equal([404, 'Ticket not found']);
      }
      for (const [body, field] of [
        [{}, 'ticket_id'],
        [{ ticket_id: '12' }, 'ticket_id'],
        [{ ticket_id: openTicket.id, tone: 'sarcastic' }, 'tone'],
        [{ ticket_id: openTicket.id, max_sources: 6 }, 'max_sources'],
        [{ ticket_id: openTicket.id, min_confidence: -1 }, 'min_confidence'],
      ] as const) {
        const bad = await suggest(body);
        expect(bad.status, JSON.stringify(body)).to.equal(422);
        expect(Object.keys(bad.body.error?.validation_errors ?? {})).to.deep.equal([field]);
      }
    });
  });

  describe('GET /api/ai/suggest-reply/availability', () => {
    it('reports the provider, the corpus, autonomy and the quota, which asking does not spend', async () => {
      const session = await signIn(agentEmail, PASSWORD);
      const before = await availability(session, `?ticket_id=${openTicket.id}`);
      expect(before.status, before.text).to.equal(200);
      expect(before.body.data).to.deep.include({ available: true, reason: null, autonomy: 'active' });
      expect(before.body.data.provider).to.include({
        kind: 'openai',
        model: 'fake-model',
        external: true,
        fallback: 'retrieval',
      });
      expect(before.body.data.corpus).to.deep.equal({
        resolved_tickets: resolvedTickets.length,
        min_required: 10,
      });
      // Counted per person: this agent's other sessions have already spent some of it.
      const quota = before.body.data.rate_limit;
      // The shared fleet lifts the spec's limits (support/fleet.ts); its values are checked below.
      expect(quota.window_seconds).to.be.a('number');
      expect(quota.remaining).to.be.within(1, quota.limit);

      expect((await suggest({ ticket_id: openTicket.id }, session)).status).to.equal(200);
      for (let i = 0; i < 2; i += 1) {
        const after = await availability(session);
        expect(after.body.data.rate_limit.remaining).to.equal(quota.remaining - 1);
      }
    });

    it('says why not in a project without history; 404 for a ticket of another project; 403 viewers', async () => {
      const empty = await agent.call('GET', inProject('/ai/suggest-reply/availability', other.slug));
      expect(empty.body.data).to.deep.include({ available: false, reason: 'insufficient_history' });
      const elsewhere = await availability(agent, `?ticket_id=${otherTicket.id}`);
      expect([elsewhere.status, elsewhere.body.error?.message]).to.deep.equal([404, 'Ticket not found']);
      expect((await availability(viewer)).status).to.equal(403);
      expect((await availability(agent, '?ticket_id=abc')).status).to.equal(400);
    });
  });

  describe('GET /api/search/tickets', () => {
    it('finds tickets by words in the project, or in every project, with highlighted snippets', async () => {
      const session = await signIn(viewerEmail, PASSWORD);
      const here = await session.call('GET', inProject('/search/tickets?q=wrong%20VAT%20invoice&per_page=5'));
      expect(here.status, here.text).to.equal(200);
      expect(here.body.data.pagination).to.include({ page: 1, per_page: 5 });
      expect(here.body.data.pagination.total).to.be.at.least(7);
      for (const result of here.body.data.results) {
        expect(result.project_id).to.equal(project.id);
        expect(result.ticket_number.startsWith(`${project.prefix}-`)).to.equal(true);
      }
      expect(here.body.data.results[0].snippet_html).to.match(/<mark>/);

      const everywhere = await session.call(
        'GET',
        `/search/tickets?q=${encodeURIComponent(otherTicket.title)}&per_page=100`,
      );
      expect(everywhere.status, everywhere.text).to.equal(200);
      const ids = everywhere.body.data.results.map((result: { ticket_id: number }) => result.ticket_id);
      expect(ids).to.include(otherTicket.id);
    });

    it('finds a ticket by its number, and words of internal notes', async () => {
      const session = await signIn(viewerEmail, PASSWORD);
      const byNumber = await session.call(
        'GET',
        `/search/tickets?q=${vatTicket.ticket_number.toLowerCase()}`,
      );
      expect(byNumber.status, byNumber.text).to.equal(200);
      expect(
        byNumber.body.data.results.map((result: { ticket_id: number }) => result.ticket_id),
      ).to.deep.equal([vatTicket.id]);
      expect(byNumber.body.data.results[0].matched_in).to.equal('number');
      const notes = await session.call('GET', inProject('/search/tickets?q=legacy%20plan'));
      expect(notes.body.data.results.length).to.be.greaterThan(0);
      expect(notes.body.data.results[0]).to.include({ matched_in: 'comment' });
    });

    it('refuses bad queries (400), an unknown project (404), strangers (401)', async () => {
      const session = await signIn(viewerEmail, PASSWORD);
      for (const query of ['', '?q=', `?q=${'x'.repeat(201)}`, '?q=x&page=0']) {
        expect((await session.call('GET', `/search/tickets${query}`)).status, query).to.equal(400);
      }
      expect((await session.call('GET', '/search/tickets?q=x&project=no-such-project')).status).to.equal(404);
      expect((await request('/api/search/tickets?q=x', { host: 'app' })).status).to.equal(401);
    });
  });

  describe('GET /api/search/ai', () => {
    it('answers a question from resolved tickets, with sources; null with a reason when nothing fits', async () => {
      const session = await signIn(viewerEmail, PASSWORD);
      const answered = await session.call(
        'GET',
        inProject('/search/ai?q=how%20do%20we%20fix%20a%20wrong%20VAT%20number&max_sources=2'),
      );
      expect(answered.status, answered.text).to.equal(200);
      expect(answered.text).to.not.include(SECRET);
      const { data } = answered.body;
      expect(data.answer).to.match(/corrected the VAT number/);
      expect(data.sources).to.have.length(2);
      expect(data).to.include({ reason: null, confidence_label: labelOf(data.confidence) });

      const nothing = await session.call('GET', inProject('/search/ai?q=zebra%20xylophone%20quasar'));
      expect(nothing.body.data).to.deep.include({ answer: null, sources: [] });
      expect(nothing.body.data.reason).to.be.a('string');
      expect((await session.call('GET', '/search/ai?q=ab')).status).to.equal(400);
    });
  });

  describe('predictions', () => {
    it("lists a new ticket's predictions; accepting one records it; 404 outside the project; 403 viewers", async () => {
      const listed = await predictionsOf(vatTicket);
      expect(listed.status, listed.text).to.equal(200);
      const byType = Object.fromEntries(
        listed.body.data.predictions.map((prediction: { action_type: string }) => [
          prediction.action_type,
          prediction,
        ]),
      );
      const priority = byType.set_priority;
      expect(priority).to.include({ outcome: null, confidence_label: labelOf(priority.confidence) });
      expect(priority.value).to.equal('medium');

      const accepted = await agent.call('POST', inProject(`/ai/predictions/${priority.id}/accept`));
      expect(accepted.status, accepted.text).to.equal(200);
      expect(accepted.body.data.prediction).to.deep.equal({ ...priority, outcome: 'accepted' });

      const elsewhere = await agent.call(
        'POST',
        inProject(`/ai/predictions/${priority.id}/accept`, other.slug),
      );
      expect([elsewhere.status, elsewhere.body.error?.message]).to.deep.equal([404, 'Prediction not found']);
      const otherTickets = await predictionsOf(otherTicket);
      expect([otherTickets.status, otherTickets.body.error?.message]).to.deep.equal([
        404,
        'Ticket not found',
      ]);
      expect((await predictionsOf(vatTicket, viewer)).status).to.equal(403);
      const withoutCsrf = await agent.call(
        'POST',
        inProject(`/ai/predictions/${priority.id}/accept`),
        undefined,
        {
          csrf: false,
        },
      );
      expect(withoutCsrf.status).to.equal(403);
    });
  });

  describe('the spec limit on a gateway at its defaults', () => {
    let gateway: SpecLimitsGateway | undefined;
    let appUrl: string;

    before(async () => {
      gateway = await startSpecLimitsGateway();
      appUrl = gateway.appUrl;
    });
    after(() => gateway?.stop());

    it('30 suggestions an hour per caller: the 31st is 429 with Retry-After, and availability says rate_limited', async () => {
      const start = await request('/api/csrf-token', { baseUrl: appUrl });
      const login = await request('/api/auth/login', {
        baseUrl: appUrl,
        method: 'POST',
        body: { email: agentEmail, password: PASSWORD },
        headers: {
          cookie: start.headers.get('set-cookie')!.split(';')[0]!,
          'x-csrf-token': start.body.data.token as string,
        },
      });
      expect(login.status, login.text).to.equal(200);
      const headers = {
        cookie: login.headers.get('set-cookie')!.split(';')[0]!,
        'x-csrf-token': login.body.data.csrf_token as string,
      };
      const suggestOnce = () =>
        request(inProject('/api/ai/suggest-reply'), {
          baseUrl: appUrl,
          method: 'POST',
          body: { ticket_id: openTicket.id },
          headers,
        });
      for (let i = 1; i <= 30; i += 1) {
        const response = await suggestOnce();
        expect(response.status, `suggestion ${i}: ${response.text}`).to.equal(200);
        expect(response.headers.get('x-ratelimit-remaining')).to.equal(String(30 - i));
      }
      const refused = await suggestOnce();
      expect(refused.status, refused.text).to.equal(429);
      expect(refused.body.error?.code).to.equal(429);
      expect(refused.headers.get('x-ratelimit-limit')).to.equal('30');
      expect(Number(refused.headers.get('retry-after'))).to.be.within(3_500, 3_600);
      const spent = await request(inProject('/api/ai/suggest-reply/availability'), {
        baseUrl: appUrl,
        headers,
      });
      expect(spent.status, spent.text).to.equal(200);
      expect(spent.body.data).to.deep.include({ available: false, reason: 'rate_limited' });
      expect(spent.body.data.rate_limit).to.include({ limit: 30, remaining: 0, window_seconds: 3600 });
    });
  });
});
