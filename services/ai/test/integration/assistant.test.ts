/**
 * The assistant end to end inside its service: events in (as the ticket and comment services emit
 * them), suggestions, search, answers and predictions out, against real lookup, ticket service and
 * PostgreSQL. The open tickets asked about are the ticket service's (the assistant reads them there);
 * the resolved ones it learns from live in its corpus only.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError, createServiceClient, type OutgoingContext, type ServiceClient } from '@tix/kit';
import type { DomainEvent, EventType } from '@tix/protos';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer, type TestTicketServer } from '@tix/ticket-service/testing';
import { ticketOf } from '../../src/peers/tickets.js';
import { startTestAiServer, type TestAiServer } from '../../src/testing.js';

const AGENT = 2;
const CUSTOMER = 3;
/** Resolved tickets live only in the corpus, under ids the ticket service will not reach here. */
const CORPUS_IDS_FROM = 100_000;
/** The customer, writing to the ticket service through an API key. */
const AS_CUSTOMER: OutgoingContext = {
  principal: {
    kind: 'api_key',
    user_id: CUSTOMER,
    role: 'agent',
    scopes: ['tickets:read', 'tickets:write', 'tickets:delete'],
  },
};

/** The refusal `call` ends with (fails the test when it succeeds). */
async function refusal(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}

describe('the assistant over its corpus', function () {
  this.timeout(60_000);
  let lookup: TestLookupServer;
  let tickets: TestTicketServer;
  /** Until the last test stops it. */
  let ticketsRunning = false;
  let ticketClient: ServiceClient<'tickets'>;
  let ticketTypeId: number;
  let assistant: TestAiServer;
  let client: ServiceClient<'ai'>;
  /** The same corpus, with a fake OpenAI-compatible model server configured. */
  let withModel: TestAiServer;
  let modelClient: ServiceClient<'ai'>;
  let modelServer: http.Server;
  /** How the fake model server answers the next request. */
  let modelAnswer: (body: { messages: { content: string }[] }, response: http.ServerResponse) => void;
  const modelRequests: string[] = [];
  let projectId: number;
  let nextId = CORPUS_IDS_FROM;
  let nextNumber = 1;
  let nextComment = 1;

  const applyAll = async (domainEvent: DomainEvent) => {
    await assistant.apply(domainEvent);
    await withModel.apply(domainEvent);
  };

  const event = (type: EventType, data: Record<string, unknown>, writeTypes?: EventType[]): DomainEvent => ({
    id: randomUUID(),
    type,
    occurred_at: new Date().toISOString(),
    source: type.startsWith('comment.') ? 'comments' : 'tickets',
    project_id: projectId,
    actor: { kind: 'user', user_id: AGENT, api_key_id: null },
    changes: {},
    ...(writeTypes ? { write_types: writeTypes } : {}),
    data,
  });

  /**
   * A ticket, optionally answered publicly by an agent and closed as resolved. An open one is created
   * in the ticket service first (the assistant reads what it is asked about there), a resolved one
   * lives in the corpus only (numbered SUP-n; the ticket service numbers the project's NEW-n).
   */
  async function ticket(options: {
    title: string;
    description: string;
    priority?: string;
    tags?: string[];
    reply?: string;
    internalNote?: string;
    createdAt?: string;
  }): Promise<number> {
    const created = options.reply
      ? null
      : await ticketClient.CreateTicket(
          {
            project_id: projectId,
            ticket_type_id: ticketTypeId,
            title: options.title,
            description: options.description,
            custom_fields_json: '',
          },
          AS_CUSTOMER,
        );
    const id = created?.id ?? nextId++;
    const base = {
      id,
      project_id: projectId,
      ticket_type_id: ticketTypeId,
      ticket_number: created ? ticketOf(created).ticket_number : `SUP-${nextNumber++}`,
      title: options.title,
      description: options.description,
      status: 'open',
      priority: options.priority ?? 'medium',
      assigned_to: null,
      created_by: CUSTOMER,
      tags: options.tags ?? [],
      resolution_type: null,
      merged_into_id: null,
      version: 1,
      created_at: options.createdAt ?? new Date(Date.now() - 3_600_000).toISOString(),
      updated_at: new Date(Date.now() - 3_600_000).toISOString(),
    };
    await applyAll(event('ticket.created', base, ['ticket.created']));
    const comment = (content: string, isInternal: boolean) =>
      applyAll(
        event('comment.created', {
          id: nextComment++,
          ticket_id: id,
          user_id: AGENT,
          content,
          content_html: null,
          is_internal: isInternal,
          created_at: new Date(Date.now() - 1_800_000).toISOString(),
          updated_at: new Date(Date.now() - 1_800_000).toISOString(),
        }),
      );
    if (options.internalNote) await comment(options.internalNote, true);
    if (options.reply) {
      await comment(options.reply, false);
      const closed = {
        ...base,
        status: 'closed',
        resolution_type: 'resolved',
        assigned_to: AGENT,
        version: 2,
        updated_at: new Date().toISOString(),
      };
      await applyAll(
        event('ticket.updated', closed, ['ticket.updated', 'ticket.status_changed', 'ticket.assigned']),
      );
    }
    return id;
  }

  before(async () => {
    lookup = await startTestLookupServer();
    tickets = await startTestTicketServer({ lookupAddress: lookup.address, label: 'ai_tickets' });
    ticketsRunning = true;
    ticketClient = createServiceClient('tickets', tickets.address, { deadlineMs: 10_000 });
    assistant = await startTestAiServer({ lookupAddress: lookup.address, ticketsAddress: tickets.address });
    client = createServiceClient('ai', assistant.address, { deadlineMs: 10_000 });
    modelServer = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        modelRequests.push(body);
        modelAnswer(JSON.parse(body) as { messages: { content: string }[] }, response);
      });
    });
    await new Promise<void>((resolve) => modelServer.listen(0, '127.0.0.1', resolve));
    const { port } = modelServer.address() as AddressInfo;
    withModel = await startTestAiServer({
      lookupAddress: lookup.address,
      ticketsAddress: tickets.address,
      label: 'ai_model',
      llm: {
        baseUrl: `http://127.0.0.1:${port}/v1`,
        apiKey: 'test-key',
        model: 'fake-model',
        timeoutMs: 500,
      },
    });
    modelClient = createServiceClient('ai', withModel.address, { deadlineMs: 10_000 });
    const lookupClient = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
    projectId = (
      await lookupClient.CreateProject({
        name: 'Support',
        slug: 'support',
        prefix: 'NEW',
        description: '',
        statuses: [
          { slug: 'open', label: 'Open', is_closed: false },
          { slug: 'closed', label: 'Closed', is_closed: true },
        ],
      })
    ).id;
    ticketTypeId = (
      await lookupClient.CreateTicketType({
        project_id: projectId,
        name: 'Question',
        slug: 'question',
        description: '',
        is_default: true,
        field_schema_json: '[]',
      })
    ).id;
    lookupClient.close();
    for (let i = 0; i < 8; i += 1) {
      await ticket({
        title: `Password reset email never arrives (${i})`,
        description: 'I requested a password reset but the reset email did not arrive in my inbox.',
        priority: 'high',
        tags: ['login'],
        reply: `Hello Sam,\n\nThe reset email can take up to 10 minutes; please check the spam folder. Write to help${i}@example.com if not.`,
        internalNote: `SECRET-${i}: customer is on the legacy plan`,
      });
      await ticket({
        title: `Invoice shows the wrong VAT number (${i})`,
        description: 'Our invoice lists an old VAT number for the company; please correct the invoice.',
        priority: 'low',
        tags: ['billing'],
        reply:
          'Hi,\n\nWe corrected the VAT number; the next invoice will show it. Past invoices can be reissued on request.',
      });
    }
  });

  after(async () => {
    client?.close();
    modelClient?.close();
    ticketClient?.close();
    await assistant?.stop();
    await withModel?.stop();
    modelServer?.close();
    if (ticketsRunning) await tickets.stop();
    await lookup?.stop();
  });

  it('reports the corpus and the provider without spending anything', async () => {
    const availability = await client.GetAvailability({ project_id: projectId });
    expect(availability).to.deep.include({ available: true, resolved_tickets: 16, min_required: 10 });
    expect(availability.provider).to.deep.include({ kind: 'retrieval', external: false });
  });

  it('suggests the reply that resolved similar tickets, with sources, redacted, never an internal note', async () => {
    const open = await ticket({
      title: 'Reset password mail not received',
      description: 'The password reset email never arrived.',
    });
    const result = await client.SuggestReply({
      project_id: projectId,
      ticket_id: open,
      tone: 'friendly',
      max_sources: 3,
    });
    expect(result.suggestion, JSON.stringify(result)).to.not.equal(null);
    const suggestion = result.suggestion!;
    expect(suggestion.content.startsWith('Hi there,\n\nThe reset email can take up to 10 minutes')).to.equal(
      true,
    );
    expect(suggestion.content).to.not.match(/SECRET|@example\.com/);
    expect(suggestion.redactions).to.equal(1);
    expect(suggestion.sources).to.have.length(3);
    for (const source of suggestion.sources) expect(source.title).to.match(/Password reset/);
    expect(suggestion.confidence).to.be.greaterThan(0.35);
    expect(suggestion.provider).to.deep.include({ kind: 'retrieval' });
  });

  it('offers nothing below the confidence floor', async () => {
    const open = await ticket({
      title: 'Dark mode for the mobile app',
      description: 'Please add a dark theme.',
    });
    const result = await client.SuggestReply({
      project_id: projectId,
      ticket_id: open,
      tone: 'neutral',
      max_sources: 3,
    });
    expect(result).to.deep.include({ reason: 'no_confident_match', min_confidence: 0.35 });
    expect(result.suggestion ?? null).to.equal(null);
  });

  it('searches words with highlighted snippets, internal notes only when allowed, and ticket numbers', async () => {
    const words = await client.SearchTickets({
      project_ids: [projectId],
      q: 'VAT invoice',
      page: { page: 1, per_page: 5 },
      include_internal: true,
    });
    expect(words.pagination?.total).to.equal(8);
    expect(words.results[0]!.snippet_html).to.match(/<mark>VAT<\/mark>/);
    const secretAllowed = await client.SearchTickets({
      project_ids: [projectId],
      q: 'legacy plan',
      page: { page: 1, per_page: 5 },
      include_internal: true,
    });
    expect(secretAllowed.results.length).to.be.greaterThan(0);
    expect(secretAllowed.results[0]!.matched_in).to.equal('comment');
    const secretHidden = await client.SearchTickets({
      project_ids: [projectId],
      q: 'legacy plan',
      page: { page: 1, per_page: 5 },
      include_internal: false,
    });
    expect(secretHidden.results).to.deep.equal([]);
    const byNumber = await client.SearchTickets({
      project_ids: [projectId],
      q: 'sup-2',
      page: { page: 1, per_page: 5 },
      include_internal: false,
    });
    expect(byNumber.results.map((hit) => hit.ticket_number)).to.deep.equal(['SUP-2']);
    const elsewhere = await client.SearchTickets({
      project_ids: [projectId + 1],
      q: 'VAT',
      page: { page: 1, per_page: 5 },
      include_internal: true,
    });
    expect(elsewhere.results).to.deep.equal([]);
  });

  it('answers a question from resolved tickets', async () => {
    const answer = await client.AnswerQuestion({
      project_ids: [projectId],
      question: 'how do we fix a wrong VAT number on an invoice?',
      max_sources: 2,
    });
    expect(answer.answer).to.match(/corrected the VAT number/);
    expect(answer.sources).to.have.length(2);
  });

  it('records shadow predictions for a new ticket, and what became of one', async () => {
    const open = await ticket({
      title: 'Wrong VAT number on my invoice',
      description: 'The invoice VAT number is outdated.',
    });
    const { predictions } = await client.ListPredictions({ project_id: projectId, ticket_id: open });
    const byType = Object.fromEntries(predictions.map((prediction) => [prediction.action_type, prediction]));
    expect(JSON.parse(byType.set_priority!.value_json)).to.equal('low');
    expect(JSON.parse(byType.add_tags!.value_json)).to.deep.equal(['billing']);
    expect(JSON.parse(byType.assign!.value_json)).to.equal(AGENT);
    const accepted = await client.RecordPredictionOutcome({
      project_id: projectId,
      id: byType.set_priority!.id,
      outcome: 'accepted',
    });
    expect(accepted.outcome).to.equal('accepted');
  });

  it('says of each prediction whether the assistant would hold it back on the ticket as it is now', async () => {
    const heldBackOf = async (ticketId: number) =>
      Object.fromEntries(
        (await client.ListPredictions({ project_id: projectId, ticket_id: ticketId })).predictions.map(
          (prediction) => [prediction.action_type, [JSON.parse(prediction.value_json), prediction.held_back]],
        ),
      );
    // A medium ticket like the low VAT ones: lowering it is held back (never_downgrade, the default).
    const lower = await ticket({
      title: 'The VAT number on our invoice is wrong',
      description: 'Please correct the VAT number on the invoice.',
    });
    expect(await heldBackOf(lower)).to.deep.include({
      set_priority: ['low', 'would_downgrade'],
      add_tags: [['billing'], undefined],
      assign: [AGENT, undefined],
    });
    // A medium ticket like the high password ones: raising it is not.
    const raise = await ticket({
      title: 'Password reset email never arrives',
      description: 'The reset email did not arrive in my inbox.',
    });
    expect((await heldBackOf(raise)).set_priority).to.deep.equal(['high', undefined]);
    // The ticket's priority as the ticket service has it now (the corpus has not seen the change).
    await ticketClient.UpdateTicket({ project_id: projectId, id: lower, priority: 'low' }, AS_CUSTOMER);
    expect((await heldBackOf(lower)).set_priority).to.deep.equal(['low', undefined]);
    await ticketClient.UpdateTicket({ project_id: projectId, id: lower, priority: 'high' }, AS_CUSTOMER);
    expect((await heldBackOf(lower)).set_priority).to.deep.equal(['low', 'would_downgrade']);
    // An admin lets the assistant lower priorities: nothing is held back.
    const admin: OutgoingContext = { principal: { kind: 'session', user_id: 1, role: 'admin', scopes: [] } };
    const neverDowngrade = (value: boolean) =>
      client.UpdateGuardrails(
        {
          project_id: projectId,
          guardrails_json: JSON.stringify({ actions: { set_priority: { never_downgrade: value } } }),
        },
        admin,
      );
    await neverDowngrade(false);
    try {
      expect((await heldBackOf(lower)).set_priority).to.deep.equal(['low', undefined]);
    } finally {
      await neverDowngrade(true);
    }
    // Accepting answers the prediction as the list does.
    const listed = (await client.ListPredictions({ project_id: projectId, ticket_id: lower })).predictions;
    const priority = listed.find((prediction) => prediction.action_type === 'set_priority')!;
    const accepted = await client.RecordPredictionOutcome({
      project_id: projectId,
      id: priority.id,
      outcome: 'accepted',
    });
    expect(accepted).to.deep.include({ held_back: 'would_downgrade', outcome: 'accepted' });
  });

  it('applies redelivered and out-of-order events once, keeping the newest state', async () => {
    const id = await ticket({ title: 'Export to CSV fails', description: 'The CSV export times out.' });
    const newer = event(
      'ticket.updated',
      {
        id,
        project_id: projectId,
        ticket_type_id: 1,
        ticket_number: `SUP-${id}`,
        title: 'Export to CSV fails for large projects',
        description: 'The CSV export times out.',
        status: 'open',
        priority: 'medium',
        assigned_to: null,
        created_by: CUSTOMER,
        tags: [],
        resolution_type: null,
        merged_into_id: null,
        version: 3,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      },
      ['ticket.updated'],
    );
    await assistant.apply(newer);
    await assistant.apply(newer);
    const older = { ...newer, id: randomUUID(), data: { ...newer.data, title: 'stale', version: 2 } };
    await assistant.apply(older);
    const { rows } = await assistant.pool.query(
      'SELECT title, version FROM ai_documents WHERE ticket_id = $1',
      [id],
    );
    expect(rows[0]).to.deep.equal({ title: 'Export to CSV fails for large projects', version: 3 });
  });

  describe('with a model server configured', () => {
    const completion = (content: string) => (_body: unknown, response: http.ServerResponse) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    };
    const suggest = async () => {
      const open = await ticket({
        title: 'Password reset mail missing',
        description: 'No reset email arrived.',
      });
      return modelClient.SuggestReply({
        project_id: projectId,
        ticket_id: open,
        tone: 'neutral',
        max_sources: 2,
      });
    };

    it('uses the rewrite, sent with public text only, keeping retrieval confidence and sources', async () => {
      modelRequests.length = 0;
      let sourceIds: number[] = [];
      modelAnswer = (body, response) => {
        sourceIds = [...body.messages[1]!.content.matchAll(/Ticket (\d+):/g)].map((match) =>
          Number(match[1]),
        );
        completion(
          JSON.stringify({
            reply: 'Hello Kim,\n\nPlease allow ten minutes and look in spam.',
            used_source_ids: sourceIds,
          }),
        )(body, response);
      };
      const result = await suggest();
      expect(result.suggestion!.content).to.equal('Hello,\n\nPlease allow ten minutes and look in spam.');
      expect(result.suggestion!.provider).to.deep.include({
        kind: 'openai',
        model: 'fake-model',
        external: true,
      });
      expect(result.suggestion!.sources.map((source) => source.ticket_id)).to.deep.equal(sourceIds);
      expect(modelRequests.join('')).to.not.match(/SECRET/);
      const availability = await modelClient.GetAvailability({ project_id: projectId });
      expect(availability.provider).to.deep.include({ kind: 'openai', fallback: 'retrieval' });
    });

    it("reads the ticket's title and description from the ticket service as they are now, not the corpus's copy", async () => {
      const open = await ticket({
        title: 'Password reset mail missing',
        description: 'No reset email arrived.',
      });
      // Changed in the ticket service only: the corpus has not seen it.
      await ticketClient.UpdateTicket(
        {
          project_id: projectId,
          id: open,
          title: 'Password reset mail still missing',
          description: { value: 'Still no reset email after two days.' },
        },
        AS_CUSTOMER,
      );
      modelRequests.length = 0;
      modelAnswer = (body, response) => {
        const given = [...body.messages[1]!.content.matchAll(/Ticket (\d+):/g)].map((match) =>
          Number(match[1]),
        );
        completion(JSON.stringify({ reply: 'Hello,\n\nLook in spam.', used_source_ids: given }))(
          body,
          response,
        );
      };
      const result = await modelClient.SuggestReply({
        project_id: projectId,
        ticket_id: open,
        tone: 'neutral',
        max_sources: 2,
      });
      expect(result.suggestion!.provider).to.deep.include({ kind: 'openai' });
      const asked = (JSON.parse(modelRequests[0]!) as { messages: { content: string }[] }).messages[1]!
        .content;
      expect(asked).to.include(
        "The customer's request:\nPassword reset mail still missing\nStill no reset email after two days.",
      );
      expect(asked).to.not.include('No reset email arrived.');
    });

    for (const [failure, answer] of [
      ['a 500', (_body: unknown, response: http.ServerResponse) => response.writeHead(500).end('boom')],
      ['malformed output', completion('not json at all')],
      [
        'a reply citing a ticket it was not given',
        completion(JSON.stringify({ reply: 'x', used_source_ids: [999999] })),
      ],
      ['a timeout', () => undefined],
    ] as const) {
      it(`falls back to retrieval on ${failure}`, async () => {
        modelAnswer = answer;
        const result = await suggest();
        expect(result.suggestion!.provider).to.deep.include({ kind: 'retrieval', external: false });
        expect(result.suggestion!.content).to.match(/reset email can take up to 10 minutes/);
      });
    }
  });

  describe('the ticket asked about, read from the ticket service', () => {
    const ticketNotFound = ['not_found', 'Ticket not found'];
    const refused = async (call: Promise<unknown>) => {
      const error = await refusal(call);
      return [error.kind, error.message];
    };
    const askAbout = (ticketId: number) =>
      Promise.all([
        refused(
          client.SuggestReply({
            project_id: projectId,
            ticket_id: ticketId,
            tone: 'neutral',
            max_sources: 3,
          }),
        ),
        refused(client.GetAvailability({ project_id: projectId, ticket_id: ticketId })),
        refused(client.ListPredictions({ project_id: projectId, ticket_id: ticketId })),
      ]);

    it('suggests for the ticket as the ticket service has it, whatever the corpus last saw', async () => {
      const open = await ticket({
        title: 'Dark mode for the mobile app',
        description: 'Please add a dark theme.',
      });
      await ticketClient.UpdateTicket(
        {
          project_id: projectId,
          id: open,
          title: 'Reset password mail not received',
          description: { value: 'The password reset email never arrived.' },
        },
        AS_CUSTOMER,
      );
      const result = await client.SuggestReply({
        project_id: projectId,
        ticket_id: open,
        tone: 'neutral',
        max_sources: 3,
      });
      expect(result.suggestion?.content, JSON.stringify(result)).to.match(
        /reset email can take up to 10 minutes/,
      );
    });

    it('answers 404 Ticket not found for a deleted ticket the corpus still holds', async () => {
      const open = await ticket({ title: 'Reset password mail not received', description: 'Never arrived.' });
      const [prediction] = (await client.ListPredictions({ project_id: projectId, ticket_id: open }))
        .predictions;
      await ticketClient.DeleteTicket({ project_id: projectId, id: open }, AS_CUSTOMER);
      expect(await askAbout(open)).to.deep.equal([ticketNotFound, ticketNotFound, ticketNotFound]);
      // Accepting one of its predictions reads the ticket too (held_back is computed on it).
      expect(
        await refused(
          client.RecordPredictionOutcome({ project_id: projectId, id: prediction!.id, outcome: 'accepted' }),
        ),
      ).to.deep.equal(ticketNotFound);
    });

    it("answers 404 Ticket not found for another project's ticket, and for one that never was", async () => {
      const lookupClient = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
      const other = await lookupClient.CreateProject({
        name: 'Other',
        slug: 'other',
        prefix: 'OTH',
        description: '',
      });
      const otherType = await lookupClient.CreateTicketType({
        project_id: other.id,
        name: 'Question',
        slug: 'question',
        description: '',
        is_default: true,
        field_schema_json: '[]',
      });
      lookupClient.close();
      const elsewhere = await ticketClient.CreateTicket(
        {
          project_id: other.id,
          ticket_type_id: otherType.id,
          title: 'Reset password mail not received',
          description: 'The password reset email never arrived.',
          custom_fields_json: '',
        },
        AS_CUSTOMER,
      );
      expect(await askAbout(elsewhere.id)).to.deep.equal([ticketNotFound, ticketNotFound, ticketNotFound]);
      expect(await askAbout(2_147_483_000)).to.deep.equal([ticketNotFound, ticketNotFound, ticketNotFound]);
    });

    it('answers unavailable while the ticket service is down, as its callers would have seen it', async () => {
      const open = await ticket({ title: 'Reset password mail not received', description: 'Never arrived.' });
      ticketsRunning = false;
      await tickets.stop();
      const kinds = (await askAbout(open)).map(([kind]) => kind);
      expect(kinds).to.deep.equal(['unavailable', 'unavailable', 'unavailable']);
    });
  });
});
