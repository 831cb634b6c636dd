import { expect } from 'chai';
import { freePort } from '@tix/kit/testing';
import { syntheticTicketEvents, syntheticTickets } from '@tix/support-corpus';
import { startTestAiServer, type TestAiServer } from '../../../ai/src/testing.js';
import { json, tix } from './cli-support.js';
import { startLookupFixture, type LookupFixture } from './support.js';

const RESOLVED = 120;

describe('admin CLI (pnpm tix ai eval) against a real lookup and assistant', function () {
  this.timeout(120_000);
  let lookup: LookupFixture;
  let assistant: TestAiServer;
  let env: Record<string, string>;
  let desk: { id: number };
  let empty: { id: number };

  before(async () => {
    lookup = await startLookupFixture();
    assistant = await startTestAiServer({ lookupAddress: lookup.server.address });
    env = { LOOKUP_SERVICE_ADDR: lookup.server.address, AI_SERVICE_ADDR: assistant.address };
    const project = (slug: string, prefix: string) =>
      lookup.client.CreateProject({ name: slug, slug, prefix, description: '', statuses: [] });
    desk = await project('desk', 'DESK');
    empty = await project('empty', 'EMP');
    const agent = (name: string) =>
      lookup.client.CreateUser({ name, email: `${name.toLowerCase()}@example.com`, role: 'agent' });
    const resolverIds = [(await agent('Ann')).id, (await agent('Bo')).id, (await agent('Cy')).id];
    const reporterId = (await agent('Dee')).id;
    for (const ticket of syntheticTickets({ count: RESOLVED, seed: 3 })) {
      const events = syntheticTicketEvents(ticket, {
        projectId: desk.id,
        ticketTypeId: 1,
        prefix: 'DESK',
        ticketId: ticket.index + 1,
        reporterId,
        resolverIds,
        createdAt: new Date(Date.UTC(2026, 0, 5) + ticket.index * 3_600_000),
      });
      for (const event of events) await assistant.apply(event);
    }
  });
  after(async () => {
    await assistant.stop();
    await lookup.stop();
  });

  it('--project --json prints the backtest: recall@k, and priority coverage and precision at each threshold', async () => {
    const output = json(await tix(['ai', 'eval', '--project', 'desk', '--json'], env));
    const [evaluation, ...others] = output.evaluations as Record<string, unknown>[];
    expect(others).to.deep.equal([]);
    expect(evaluation).to.deep.include({
      project_id: desk.id,
      project_slug: 'desk',
      resolved_tickets: RESOLVED,
      k: 3,
      default_threshold: 0.8,
    });
    expect(evaluation!.recall_at_k).to.be.within(0.9, 1);
    const priority = evaluation!.priority as { threshold: number; coverage: number; precision: number }[];
    expect(priority.map((point) => point.threshold)).to.deep.equal([
      0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99,
    ]);
    for (const point of priority) {
      expect(point.coverage).to.be.within(0, 1);
      expect(point.precision).to.be.within(0, 1);
    }
  });

  it('without --project evaluates every project, as a table marking the default threshold', async () => {
    const run = await tix(['ai', 'eval', '--k', '1'], env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.equal('');
    const lines = run.stdout.split('\n');
    expect(lines[0]).to.equal(
      `Project desk (id ${desk.id}): ${RESOLVED} resolved tickets, each looked up as if new`,
    );
    expect(lines[1]).to.match(
      /^ {2}recall@1: \d+\.\d % found a ticket of the same category among the 1 nearest$/,
    );
    expect(lines).to.include('    threshold        coverage  precision');
    expect(lines.filter((line) => /^ {4}0\.80 \(default\) +\d+\.\d % +\d+\.\d %$/.test(line))).to.have.length(
      1,
    );
    expect(lines.at(-2)).to.equal(
      `Project empty (id ${empty.id}): no resolved tickets with a public reply yet`,
    );
  });

  it('refuses an unknown project with exit 1', async () => {
    expect(await tix(['ai', 'eval', '--project', 'nope'], env)).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'tix: Project not found (404 not_found)\n',
    });
  });

  it('says when the assistant is not deployed or does not answer (exit 3)', async () => {
    expect(await tix(['ai', 'eval', '--json'], { ...env, AI_SERVICE_ADDR: 'none' })).to.deep.equal({
      code: 3,
      stdout: '',
      stderr: 'tix: the assistant is not deployed (AI_SERVICE_ADDR=none)\n',
    });
    const address = `127.0.0.1:${await freePort()}`;
    expect(await tix(['ai', 'eval', '--json'], { ...env, AI_SERVICE_ADDR: address })).to.deep.equal({
      code: 3,
      stdout: '',
      stderr: `tix: cannot reach the assistant at ${address} — is it running? (pnpm start)\n`,
    });
  });
});
