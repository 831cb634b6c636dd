/**
 * CreateTicket with a claimed Idempotency-Key (the gateway's scope and fingerprint in gRPC metadata):
 * the key is recorded in the create statement, so a retry whose gateway record was lost gets the
 * first ticket back instead of a second one.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { IdempotencyContext, OutgoingContext } from '@tix/kit';
import {
  deleteExpiredIdempotencyRecords,
  IDEMPOTENCY_MISMATCH_MESSAGE,
  startIdempotencySweep,
} from '../../src/tickets/idempotency-sweep.js';
import { testLogger, suiteFixture } from '@tix/kit/testing';
import {
  outboxMark,
  outboxSince,
  questionTicket,
  refusalOf,
  startTicketFixture,
  ticketOf,
} from './support.js';

const hash = () => randomBytes(32).toString('hex');

describe('tickets: CreateTicket with an Idempotency-Key', () => {
  const f = suiteFixture(() => startTicketFixture());

  /** A valid request with a title no other test uses. */
  const titledTicket = (label: string) => {
    const title = `${label} ${hash().slice(0, 8)}`;
    return { ...questionTicket(f.demo), title };
  };
  const keyed = (idempotency: IdempotencyContext): OutgoingContext => ({ ...f.agent, idempotency });
  const ticketsTitled = async (title: string) => {
    const { rows } = await f.sql.query<{ id: number }>(
      'SELECT id FROM tickets WHERE title = $1 ORDER BY id',
      [title],
    );
    return rows.map((row) => row.id);
  };
  const recordOf = async (scope: string) => {
    const { rows } = await f.sql.query<{ fingerprint: string; ticket_id: number }>(
      'SELECT fingerprint, ticket_id FROM ticket_idempotency WHERE scope = $1',
      [scope],
    );
    return rows;
  };

  it('a repeat with the same scope and fingerprint returns the first ticket; one row, one event', async () => {
    const key = { scope: hash(), fingerprint: hash() };
    const request = titledTicket('Keyed');
    const mark = await outboxMark(f.sql);
    const first = await f.client.CreateTicket(request, keyed(key));
    const second = await f.client.CreateTicket(request, keyed(key));
    // Parsed: custom fields read back from jsonb may list their keys in another order.
    expect(ticketOf(second)).to.deep.equal(ticketOf(first));
    expect(await ticketsTitled(request.title)).to.deep.equal([Number(first.id)]);
    expect(await recordOf(key.scope)).to.deep.equal([
      { fingerprint: key.fingerprint, ticket_id: Number(first.id) },
    ]);
    const events = await outboxSince(f.sql, mark);
    expect(events.map((event) => event.event_type)).to.deep.equal(['ticket.created']);
  });

  it('the repeat answers the ticket as it is now, also after it changed', async () => {
    const key = { scope: hash(), fingerprint: hash() };
    const request = titledTicket('Changed');
    const first = await f.client.CreateTicket(request, keyed(key));
    const updated = await f.client.UpdateTicket(
      { project_id: f.demo.support.id, id: first.id, priority: 'high', version: first.version },
      f.agent,
    );
    const again = await f.client.CreateTicket(request, keyed(key));
    expect(again).to.deep.equal(updated);
    expect(await ticketsTitled(request.title)).to.have.length(1);
  });

  it('the same scope with another fingerprint is 409 and creates nothing', async () => {
    const scope = hash();
    const request = titledTicket('Mismatch');
    const first = await f.client.CreateTicket(request, keyed({ scope, fingerprint: hash() }));
    const mark = await outboxMark(f.sql);
    expect(
      await refusalOf(
        f.client.CreateTicket(
          { ...request, title: `${request.title} b` },
          keyed({ scope, fingerprint: hash() }),
        ),
      ),
    ).to.deep.equal({ kind: 'conflict', message: IDEMPOTENCY_MISMATCH_MESSAGE });
    expect(await ticketsTitled(request.title)).to.deep.equal([Number(first.id)]);
    expect(await ticketsTitled(`${request.title} b`)).to.deep.equal([]);
    expect(await outboxSince(f.sql, mark)).to.deep.equal([]);
  });

  it('10 concurrent creates of one scope make one ticket; every answer is that ticket', async () => {
    const key = { scope: hash(), fingerprint: hash() };
    const request = titledTicket('Race');
    const mark = await outboxMark(f.sql);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => f.client.CreateTicket(request, keyed(key))),
    );
    const ids = await ticketsTitled(request.title);
    expect(ids).to.have.length(1);
    expect(new Set(answers.map((answer) => Number(answer.id)))).to.deep.equal(new Set(ids));
    expect((await outboxSince(f.sql, mark)).map((event) => event.event_type)).to.deep.equal([
      'ticket.created',
    ]);
  });

  it('concurrent creates of one scope with two fingerprints: one ticket, the rest it or 409, never 500', async () => {
    const scope = hash();
    const fingerprints = [hash(), hash()];
    const request = titledTicket('Mixed race');
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        f.client.CreateTicket(request, keyed({ scope, fingerprint: fingerprints[index % 2]! })).then(
          (created) => ({ id: Number(created.id) }),
          (error: unknown) => ({ error: error as { kind?: string } }),
        ),
      ),
    );
    const ids = await ticketsTitled(request.title);
    expect(ids).to.have.length(1);
    for (const outcome of outcomes) {
      if ('id' in outcome) expect(outcome.id).to.equal(ids[0]);
      else expect(outcome.error.kind).to.equal('conflict');
    }
    const [record] = await recordOf(scope);
    // Exactly the callers with the winning fingerprint got the ticket.
    const winners = outcomes.filter((_, index) => fingerprints[index % 2] === record!.fingerprint);
    expect(winners.every((outcome) => 'id' in outcome)).to.equal(true);
    expect(outcomes.filter((outcome) => 'id' in outcome)).to.have.length(5);
  });

  it('different scopes, no key, or malformed hashes: independent tickets', async () => {
    const request = titledTicket('Independent');
    const fingerprint = hash();
    await f.client.CreateTicket(request, keyed({ scope: hash(), fingerprint }));
    await f.client.CreateTicket(request, keyed({ scope: hash(), fingerprint }));
    await f.client.CreateTicket(request, f.agent);
    await f.client.CreateTicket(request, f.agent);
    const malformed = { scope: 'not-a-hash', fingerprint: 'F'.repeat(64) };
    await f.client.CreateTicket(request, keyed(malformed));
    await f.client.CreateTicket(request, keyed(malformed));
    expect(await ticketsTitled(request.title)).to.have.length(6);
  });

  it('a failed create records nothing: the corrected retry with the same scope creates', async () => {
    const scope = hash();
    const request = questionTicket(f.demo, { title: '' });
    expect(
      (await refusalOf(f.client.CreateTicket(request, keyed({ scope, fingerprint: hash() })))).kind,
    ).to.equal('validation_failed');
    expect(await recordOf(scope)).to.deep.equal([]);
    const created = await f.client.CreateTicket(
      { ...request, title: `Corrected ${hash().slice(0, 8)}` },
      keyed({ scope, fingerprint: hash() }),
    );
    expect((await recordOf(scope))[0]!.ticket_id).to.equal(Number(created.id));
  });

  it('a record older than the 1 hour window no longer answers: the key creates again', async () => {
    const key = { scope: hash(), fingerprint: hash() };
    const request = titledTicket('Expired');
    const first = await f.client.CreateTicket(request, keyed(key));
    await f.sql.query(
      "UPDATE ticket_idempotency SET created_at = now() - interval '61 minutes' WHERE scope = $1",
      [key.scope],
    );
    const second = await f.client.CreateTicket(request, keyed(key));
    expect(second.id).to.not.equal(first.id);
    expect(await ticketsTitled(request.title)).to.have.length(2);
    expect((await recordOf(key.scope))[0]!.ticket_id).to.equal(Number(second.id));
    // The replaced record answers again, with the new ticket.
    expect((await f.client.CreateTicket(request, keyed(key))).id).to.equal(second.id);
  });

  it('the sweep deletes records older than 24 hours and keeps the rest', async () => {
    const request = titledTicket('Swept');
    const [old, recent, fresh] = [hash(), hash(), hash()];
    for (const scope of [old, recent, fresh])
      await f.client.CreateTicket(request, keyed({ scope, fingerprint: hash() }));
    await f.sql.query(
      "UPDATE ticket_idempotency SET created_at = now() - interval '25 hours' WHERE scope = $1",
      [old],
    );
    await f.sql.query(
      "UPDATE ticket_idempotency SET created_at = now() - interval '23 hours' WHERE scope = $1",
      [recent],
    );
    const sweep = startIdempotencySweep({ pool: f.sql, logger: testLogger('sweep'), intervalMs: 3_600_000 });
    try {
      expect(await sweep.runOnce()).to.be.at.least(1);
    } finally {
      await sweep.stop();
    }
    expect(await recordOf(old)).to.deep.equal([]);
    expect(await recordOf(recent)).to.have.length(1);
    expect(await recordOf(fresh)).to.have.length(1);
    expect(await deleteExpiredIdempotencyRecords(f.sql)).to.equal(0);
    // The tickets themselves stay.
    expect(await ticketsTitled(request.title)).to.have.length(3);
  });
});
