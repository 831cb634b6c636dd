/**
 * `expected_version` (HTTP If-Match) on UpdateTicket, MoveTicket and DeleteTicket: the write happens
 * only while the ticket is at that version, else 412 and nothing is written; on update it is checked
 * before the body's `version` (409); a write racing it is checked again on its retry.
 */
import { expect } from 'chai';
import {
  outboxMark,
  outboxSince,
  questionTicket,
  refusalOf,
  startTicketFixture,
  ticketOf,
} from './support.js';
import { suiteFixture } from '@tix/kit/testing';

const CHANGED = { kind: 'precondition_failed', message: 'Ticket has changed since the ETag in If-Match' };

describe('tickets: writes conditional on expected_version (If-Match)', () => {
  const f = suiteFixture(() => startTicketFixture());
  let project: number;

  before(() => {
    project = f.demo.support.id;
  });

  const fresh = async () => {
    const created = await f.client.CreateTicket(questionTicket(f.demo, { title: 'conditional' }), f.agent);
    return { project_id: project, id: created.id, version: created.version };
  };

  it('updates, moves and deletes at the expected version, and refuses any other with 412, writing nothing', async () => {
    const ticket = await fresh();
    const mark = await outboxMark(f.sql);
    const stale = { project_id: project, id: ticket.id, expected_version: ticket.version + 1 };
    expect(await refusalOf(f.client.UpdateTicket({ ...stale, title: 'no' }, f.agent))).to.deep.equal(CHANGED);
    expect(await refusalOf(f.client.MoveTicket({ ...stale, status: 'closed' }, f.agent))).to.deep.equal(
      CHANGED,
    );
    expect(await refusalOf(f.client.DeleteTicket(stale, f.agent))).to.deep.equal(CHANGED);
    expect(await outboxSince(f.sql, mark)).to.deep.equal([]);
    const unchanged = await f.client.GetTicket({ project_id: project, id: ticket.id }, f.agent);
    expect([ticketOf(unchanged).title, unchanged.version]).to.deep.equal(['conditional', ticket.version]);

    const address = { project_id: project, id: ticket.id };
    const updated = await f.client.UpdateTicket(
      { ...address, title: 'yes', expected_version: ticket.version },
      f.agent,
    );
    expect(updated.version).to.equal(ticket.version + 1);
    const moved = await f.client.MoveTicket(
      { ...address, status: 'closed', expected_version: updated.version },
      f.agent,
    );
    expect([ticketOf(moved).status, moved.version]).to.deep.equal(['closed', updated.version + 1]);
    expect(
      await f.client.DeleteTicket({ ...address, expected_version: moved.version }, f.agent),
    ).to.deep.equal({
      message: 'Ticket deleted',
    });
  });

  it('checks If-Match before the body version: a stale If-Match is 412 even with a current version, a current one with a stale version 409', async () => {
    const ticket = await fresh();
    const address = { project_id: project, id: ticket.id };
    expect(
      await refusalOf(
        f.client.UpdateTicket(
          { ...address, title: 'x', version: ticket.version, expected_version: ticket.version + 1 },
          f.agent,
        ),
      ),
    ).to.deep.equal(CHANGED);
    expect(
      await refusalOf(
        f.client.UpdateTicket(
          { ...address, title: 'x', version: ticket.version + 1, expected_version: ticket.version },
          f.agent,
        ),
      ),
    ).to.deep.include({ kind: 'conflict', message: 'Ticket was modified by another user' });
  });

  it('lets one of two writes at the same expected version through; the other is 412', async () => {
    const ticket = await fresh();
    const address = { project_id: project, id: ticket.id, expected_version: ticket.version };
    const outcomes = await Promise.allSettled([
      f.client.UpdateTicket({ ...address, priority: 'high' }, f.agent),
      f.client.MoveTicket({ ...address, status: 'closed' }, f.agent),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).to.deep.include(CHANGED);
    const after = await f.client.GetTicket({ project_id: project, id: ticket.id }, f.agent);
    expect(after.version).to.equal(ticket.version + 1);
  });
});
