/**
 * CountInvalidFieldValues (the ticket service's half of a field_schema change) and the retired-type
 * refusal, through a real lookup service and the ticket service's gRPC API.
 */
import { expect } from 'chai';
import { AUDIT_BATCH_SIZE } from '../../src/field-audit/count-invalid-field-values.js';
import { TICKET_TYPE_RETIRED } from '../../src/tickets/ticket-references.js';
import { refusalOf, startTicketFixture, type TicketFixture, ticketOf } from './support.js';

const text = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  label: name[0]!.toUpperCase() + name.slice(1),
  type: 'text',
  required: false,
  ...extra,
});
const select = (name: string, allowed: string[], extra: Record<string, unknown> = {}) => ({
  name,
  label: name[0]!.toUpperCase() + name.slice(1),
  type: 'select',
  required: false,
  constraints: { allowed_values: allowed },
  ...extra,
});

describe('tickets: CountInvalidFieldValues and retired types', () => {
  let f: TicketFixture;
  let typeCounter = 0;

  // Types are read fresh from lookup, so retiring one is seen at once (no cache in between).
  before(async () => {
    f = await startTicketFixture({ cacheTtls: { ticketTypeMs: 0 } });
  });
  after(() => f.stop());

  /** A new ticket type of the support project with `schema` (created by the CLI: no principal). */
  async function newType(schema: unknown[]): Promise<number> {
    typeCounter += 1;
    const type = await f.lookup.CreateTicketType({
      project_id: f.demo.support.id,
      name: `Audit ${typeCounter}`,
      slug: `audit_${typeCounter}`,
      field_schema_json: JSON.stringify(schema),
    });
    return type.id;
  }

  async function newTicket(typeId: number, customFields: Record<string, unknown>): Promise<number> {
    const created = await f.client.CreateTicket(
      {
        project_id: f.demo.support.id,
        ticket_type_id: typeId,
        title: 'Audit me',
        custom_fields_json: JSON.stringify(customFields),
        tags: [],
      },
      f.agent,
    );
    return created.id;
  }

  function count(typeId: number, schema: unknown[] | string) {
    return f.client.CountInvalidFieldValues(
      {
        project_id: f.demo.support.id,
        ticket_type_id: typeId,
        field_schema_json: typeof schema === 'string' ? schema : JSON.stringify(schema),
      },
      f.agent,
    );
  }

  it('counts nothing when every stored value fits the candidate schema', async () => {
    const typeId = await newType([text('summary'), select('tier', ['gold', 'silver'])]);
    await newTicket(typeId, { summary: 'a', tier: 'gold' });
    await newTicket(typeId, {});
    // Adding an optional field, widening allowed_values and removing a field break nothing.
    expect(await count(typeId, [select('tier', ['gold', 'silver', 'bronze']), text('extra')])).to.deep.equal({
      live: 0,
      deleted: 0,
    });
  });

  it('counts the tickets lacking a required field added without a default, not those holding it', async () => {
    const typeId = await newType([text('summary')]);
    await newTicket(typeId, { summary: 'has it' });
    await newTicket(typeId, {});
    await newTicket(typeId, {});
    expect(await count(typeId, [text('summary', { required: true })])).to.deep.equal({ live: 2, deleted: 0 });
    // With a default the next write fills it in: nothing breaks.
    expect(await count(typeId, [text('summary', { required: true, default_value: 'n/a' })])).to.deep.equal({
      live: 0,
      deleted: 0,
    });
  });

  it('counts the tickets whose select value a narrowed allowed_values refuses', async () => {
    const typeId = await newType([select('tier', ['gold', 'silver', 'bronze'])]);
    await newTicket(typeId, { tier: 'gold' });
    await newTicket(typeId, { tier: 'bronze' });
    await newTicket(typeId, { tier: 'bronze' });
    await newTicket(typeId, {});
    expect(await count(typeId, [select('tier', ['gold', 'silver'])])).to.deep.equal({ live: 2, deleted: 0 });
  });

  it('counts the tickets whose values no longer fit a field whose type or constraints changed', async () => {
    const typeId = await newType([text('code')]);
    await newTicket(typeId, { code: '42' });
    await newTicket(typeId, { code: 'forty-two' });
    await newTicket(typeId, { code: 'x'.repeat(30) });
    // text -> number: a stored string is no number.
    expect(
      await count(typeId, [{ name: 'code', label: 'Code', type: 'number', required: false }]),
    ).to.deep.equal({ live: 3, deleted: 0 });
    expect(await count(typeId, [text('code', { constraints: { max_length: 10 } })])).to.deep.equal({
      live: 1,
      deleted: 0,
    });
  });

  it('counts soft-deleted tickets apart, and only tickets of that type and project', async () => {
    const typeId = await newType([text('summary')]);
    const otherTypeId = await newType([text('summary')]);
    const kept = await newTicket(typeId, {});
    const deleted = await newTicket(typeId, {});
    await newTicket(otherTypeId, {});
    await f.client.DeleteTicket({ project_id: f.demo.support.id, id: deleted }, f.as(f.demo.users.lead));
    const required = [text('summary', { required: true })];
    expect(await count(typeId, required)).to.deep.equal({ live: 1, deleted: 1 });
    expect(kept).to.be.a('number');
    const elsewhere = await f.client.CountInvalidFieldValues(
      { project_id: f.demo.platform.id, ticket_type_id: typeId, field_schema_json: JSON.stringify(required) },
      f.agent,
    );
    expect(elsewhere).to.deep.equal({ live: 0, deleted: 0 });
  });

  it(`reads every ticket across batches of ${AUDIT_BATCH_SIZE}`, async () => {
    const typeId = await newType([text('summary')]);
    const total = AUDIT_BATCH_SIZE * 2 + 5;
    // Arranged in SQL: thousands of creates through the API would only slow the test down.
    await f.sql.query(
      `INSERT INTO tickets (project_id, ticket_type_id, project_ref_id, title, status, created_by,
                            source_type, custom_fields, lane_rank)
       SELECT $1, $2, 100000 + n, 'Bulk', 'open', 1, 'api',
              CASE WHEN n % 3 = 0 THEN '{}'::jsonb ELSE '{"summary":"x"}'::jsonb END,
              'bulk' || lpad(n::text, 6, '0')
         FROM generate_series(1, $3) AS n`,
      [f.demo.support.id, typeId, total],
    );
    await f.sql.query(
      `UPDATE tickets SET deleted_at = now() WHERE ticket_type_id = $1 AND project_ref_id % 3 = 1`,
      [typeId],
    );
    const lacking = Math.floor(total / 3);
    const { rows } = await f.sql.query<{ live: number; deleted: number }>(
      `SELECT count(*) FILTER (WHERE deleted_at IS NULL)::int AS live,
              count(*) FILTER (WHERE deleted_at IS NOT NULL)::int AS deleted
         FROM tickets WHERE ticket_type_id = $1 AND NOT custom_fields ? 'summary'`,
      [typeId],
    );
    expect(rows[0]!.live + rows[0]!.deleted).to.equal(lacking);
    expect(await count(typeId, [text('summary', { required: true })])).to.deep.equal(rows[0]);
  });

  it('refuses a candidate schema that is not a valid field_schema (422 on field_schema)', async () => {
    const typeId = await newType([]);
    const refused = await refusalOf(count(typeId, [{ name: 'x', label: 'X', type: 'no_such_type' }]));
    expect(refused.kind).to.equal('validation_failed');
    expect(Object.keys(refused.validation_errors as object)[0]).to.match(/^field_schema\[0\]/);
    expect((await refusalOf(count(typeId, '{not json'))).validation_errors).to.have.key('field_schema');
  });

  describe('a retired ticket type', () => {
    let typeId: number;
    let ticketId: number;

    before(async () => {
      typeId = await newType([text('summary')]);
      ticketId = await newTicket(typeId, { summary: 'before retirement' });
      const retired = await f.lookup.UpdateTicketType({
        project_id: f.demo.support.id,
        id: typeId,
        is_retired: true,
      });
      expect(retired.retired_at).to.be.a('string');
    });

    it('takes no new ticket: 422 on ticket_type_id', async () => {
      const refused = await refusalOf(newTicket(typeId, { summary: 'after' }));
      expect(refused).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { ticket_type_id: [TICKET_TYPE_RETIRED] },
      });
      expect(TICKET_TYPE_RETIRED).to.equal('Ticket type is retired');
    });

    it('keeps its tickets readable and editable, values included', async () => {
      const got = await f.client.GetTicket({ project_id: f.demo.support.id, id: ticketId }, f.agent);
      expect(ticketOf(got).custom_fields).to.deep.equal({ summary: 'before retirement' });
      const updated = await f.client.UpdateTicket(
        {
          project_id: f.demo.support.id,
          id: ticketId,
          description: null,
          assigned_to: null,
          custom_fields_json: JSON.stringify({ summary: 'edited later' }),
        },
        f.agent,
      );
      expect(ticketOf(updated).custom_fields).to.deep.equal({ summary: 'edited later' });
    });

    it('takes new tickets again once brought back', async () => {
      await f.lookup.UpdateTicketType({ project_id: f.demo.support.id, id: typeId, is_retired: false });
      expect(await newTicket(typeId, { summary: 'back' })).to.be.a('number');
    });
  });
});
