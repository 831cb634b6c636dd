/**
 * Editing a ticket type (UpdateTicketType): admin only, creation's rules, the default flag moved in
 * one transaction, a retired type never the default, ticket_type.updated in the same transaction,
 * and a field_schema change refused with the ticket count a real ticket service reports.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { freePort, startTestService } from '@tix/kit/testing';
import type { lookup, Principal } from '@tix/protos';
// The ticket service as its own tests start it (a workspace sibling; lookup's tests only).
import { startTestTicketServer, type TestTicketServer } from '../../../tickets/src/testing.js';
import { lookupService } from '../../src/server.js';
import { newEventsReader, refusalOf } from './support.js';

function as(role: Principal['role'], userId: number): OutgoingContext {
  return {
    principal: {
      kind: 'session',
      user_id: userId,
      role,
      scopes: ['tickets:read', 'tickets:write', 'tickets:delete'],
    },
  };
}

/** A lookup service whose ticket-service peer is at `ticketsAddress`. */
function startLookup(
  label: string,
  { ticketsAddress, ...config }: { ticketsAddress: string; grpcPort?: number; serviceDeadlineMs?: number },
) {
  return startTestService(lookupService(), {
    label,
    config: { ...config, peers: { tickets: ticketsAddress } },
  });
}

interface OutboxEvent {
  type: string;
  source: string;
  project_id?: number;
  data: Record<string, unknown>;
}

const summary = { name: 'summary', label: 'Summary', type: 'text', required: false };
const tier = (allowed: string[]) => ({
  name: 'tier',
  label: 'Tier',
  type: 'select',
  required: false,
  constraints: { allowed_values: allowed },
});

describe('lookup: editing ticket types', function () {
  this.timeout(60_000);
  let lookupServer: Awaited<ReturnType<typeof startLookup>>;
  let ticketServer: TestTicketServer;
  let client: ServiceClient<'lookup'>;
  let tickets: ServiceClient<'tickets'>;
  let sql: pg.Pool;
  let admin: OutgoingContext;
  let adminId: number;
  let project: lookup.Project__Output;
  let otherProject: lookup.Project__Output;
  let counter = 0;

  before(async () => {
    const lookupPort = await freePort();
    // Each calls the other: the ticket service's lookup client connects on first use. Types are
    // read fresh, so a ticket written right after a schema change is checked against the new one.
    ticketServer = await startTestTicketServer({
      lookupAddress: `127.0.0.1:${lookupPort}`,
      cacheTtls: { ticketTypeMs: 0 },
    });
    lookupServer = await startLookup('lookup_type_edits', {
      grpcPort: lookupPort,
      ticketsAddress: ticketServer.address,
    });
    client = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
    tickets = createServiceClient('tickets', ticketServer.address, { deadlineMs: 10_000 });
    sql = new pg.Pool({ connectionString: lookupServer.databaseUrl, max: 2 });
    adminId = (await client.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'admin' })).id;
    admin = as('admin', adminId);
    project = await client.CreateProject({ name: 'Types', slug: 'types', prefix: 'TY' });
    otherProject = await client.CreateProject({ name: 'Other', slug: 'other', prefix: 'OT' });
  });
  after(async () => {
    client?.close();
    tickets?.close();
    await sql?.end();
    await lookupServer?.stop();
    await ticketServer?.stop();
  });

  async function newType(
    options: { schema?: unknown[]; isDefault?: boolean; projectId?: number } = {},
  ): Promise<lookup.TicketType__Output> {
    counter += 1;
    return client.CreateTicketType({
      project_id: options.projectId ?? project.id,
      name: `Type ${counter}`,
      slug: `type_${counter}`,
      is_default: options.isDefault ?? false,
      field_schema_json: JSON.stringify(options.schema ?? []),
    });
  }

  async function newTicket(type: lookup.TicketType__Output, customFields: Record<string, unknown>) {
    return tickets.CreateTicket(
      {
        project_id: type.project_id,
        ticket_type_id: type.id,
        title: 'A ticket',
        custom_fields_json: JSON.stringify(customFields),
        tags: [],
      },
      admin,
    );
  }

  function update(request: Omit<lookup.UpdateTicketTypeRequest, 'project_id'> & { project_id?: number }) {
    return client.UpdateTicketType({ project_id: project.id, ...request }, admin);
  }

  /** ticket_type.updated events written since the last call. */
  const newEvents = newEventsReader<OutboxEvent>(() => sql, 'ticket_type.updated');
  // Each test sees only the events it causes.
  beforeEach(() => newEvents());

  it('refuses a principal that is not an admin (403)', async () => {
    const type = await newType();
    for (const role of ['team_lead', 'agent', 'viewer'] as const) {
      expect(
        await refusalOf(
          client.UpdateTicketType({ project_id: project.id, id: type.id, name: 'X' }, as(role, 99)),
        ),
      ).to.deep.equal({ kind: 'permission_denied', message: 'This operation requires the admin role' });
    }
    expect(await newEvents()).to.deep.equal([]);
  });

  it('renames and redescribes (trimmed), slug untouched, and writes ticket_type.updated', async () => {
    const type = await newType();
    const updated = await update({ id: type.id, name: '  Incident  ', description: 'Something is down' });
    expect(updated).to.deep.include({
      id: type.id,
      project_id: project.id,
      name: 'Incident',
      slug: type.slug,
      description: 'Something is down',
      is_default: false,
      field_schema_json: '[]',
    });
    expect(updated.retired_at).to.equal(undefined);
    const events = await newEvents();
    expect(events).to.have.length(1);
    expect(events[0]).to.deep.include({
      type: 'ticket_type.updated',
      source: 'lookup',
      project_id: project.id,
    });
    expect(events[0]!.data).to.deep.equal({
      id: type.id,
      project_id: project.id,
      name: 'Incident',
      slug: type.slug,
      description: 'Something is down',
      is_default: false,
      field_schema: [],
      retired_at: null,
      changed: ['name', 'description'],
      actor_id: adminId,
    });
  });

  it('values the type already has change nothing and write no event', async () => {
    const type = await newType({ schema: [summary] });
    const same = await update({
      id: type.id,
      name: type.name,
      is_default: false,
      is_retired: false,
      field_schema_json: type.field_schema_json,
    });
    expect(same).to.deep.equal(type);
    expect(await newEvents()).to.deep.equal([]);
  });

  it('moves the default flag from the previous default in one change, with an event for each', async () => {
    const first = await newType({ isDefault: true, projectId: otherProject.id });
    const second = await newType({ projectId: otherProject.id });
    const untouched = await newType({ isDefault: true });
    await newEvents();
    const made = await client.UpdateTicketType(
      { project_id: otherProject.id, id: second.id, is_default: true },
      admin,
    );
    expect(made.is_default).to.equal(true);
    const { ticket_types: types } = await client.ListTicketTypes({ project_id: otherProject.id });
    expect(types.filter((type) => type.is_default).map((type) => type.id)).to.deep.equal([second.id]);
    expect((await client.GetTicketType({ project_id: project.id, id: untouched.id })).is_default).to.equal(
      true,
    );
    const events = await newEvents();
    expect(events.map((event) => [event.data.id, event.data.is_default, event.data.changed])).to.deep.equal([
      [first.id, false, ['is_default']],
      [second.id, true, ['is_default']],
    ]);
    // false clears the flag: the project then has no default, as one created without any.
    const cleared = await client.UpdateTicketType(
      { project_id: otherProject.id, id: second.id, is_default: false },
      admin,
    );
    expect(cleared.is_default).to.equal(false);
  });

  it('a new default type at creation writes ticket_type.updated for the type that lost the flag', async () => {
    const own = await client.CreateProject({ name: 'Created', slug: 'created', prefix: 'CR' });
    const previous = await newType({ isDefault: true, projectId: own.id });
    expect(await newEvents()).to.deep.equal([]);
    const created = await client.CreateTicketType(
      { project_id: own.id, name: 'Newer', slug: 'newer', is_default: true },
      admin,
    );
    expect(created.is_default).to.equal(true);
    const events = await newEvents();
    expect(events).to.have.length(1);
    expect(events[0]!.data).to.deep.include({
      id: previous.id,
      project_id: own.id,
      is_default: false,
      changed: ['is_default'],
      actor_id: adminId,
    });
  });

  it('refuses invalid values with 422 naming every field, and an empty request on body', async () => {
    const type = await newType();
    const taken = await newType();
    expect(await refusalOf(update({ id: type.id, name: ' ', description: 'x\u0000' }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        name: ['Name is required'],
        description: ['Description must not contain control characters'],
      },
    });
    expect(await refusalOf(update({ id: type.id, name: taken.name }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { name: [`A ticket type with name "${taken.name}" already exists in this project`] },
    });
    expect(await refusalOf(update({ id: type.id }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        body: [
          'Give at least one field to change: name, description, is_default, field_schema or is_retired',
        ],
      },
    });
    const badSchema = await refusalOf(
      update({ id: type.id, field_schema_json: JSON.stringify([{ name: 'x', label: 'X', type: 'nope' }]) }),
    );
    expect(badSchema.kind).to.equal('validation_failed');
    expect(
      Object.keys(badSchema.validation_errors as object).every((key) => key.startsWith('field_schema')),
    ).to.equal(true);
    expect(await newEvents()).to.deep.equal([]);
  });

  it('answers 404 for an unknown type and for a type of another project', async () => {
    const type = await newType();
    const notFound = { kind: 'not_found', message: 'Ticket type not found' };
    expect(await refusalOf(update({ id: 999_999, name: 'X' }))).to.deep.equal(notFound);
    expect(await refusalOf(update({ project_id: otherProject.id, id: type.id, name: 'X' }))).to.deep.equal(
      notFound,
    );
  });

  describe('field_schema', () => {
    it('takes a schema the stored values fit (an optional field added)', async () => {
      const type = await newType({ schema: [summary] });
      await newTicket(type, { summary: 'one' });
      await newTicket(type, {});
      const updated = await update({
        id: type.id,
        field_schema_json: JSON.stringify([summary, tier(['a', 'b'])]),
      });
      expect(
        (JSON.parse(updated.field_schema_json) as { name: string }[]).map((field) => field.name),
      ).to.deep.equal(['summary', 'tier']);
      const [event] = await newEvents();
      expect(event!.data.changed).to.deep.equal(['field_schema']);
      expect((event!.data.field_schema as unknown[]).length).to.equal(2);
    });

    it('refuses a required field the stored tickets lack (409 with the count), writing nothing', async () => {
      const type = await newType({ schema: [summary] });
      await newTicket(type, { summary: 'has it' });
      await newTicket(type, {});
      await newTicket(type, {});
      const gone = await newTicket(type, {});
      await tickets.DeleteTicket({ project_id: project.id, id: gone.id }, admin);
      const refused = await refusalOf(
        update({ id: type.id, field_schema_json: JSON.stringify([{ ...summary, required: true }]) }),
      );
      expect(refused).to.deep.equal({
        kind: 'conflict',
        message: 'The new field_schema would make the stored values of 3 tickets invalid (1 of them deleted)',
        validation_errors: { live_tickets: 2, deleted_tickets: 1 },
      });
      expect(
        (await client.GetTicketType({ project_id: project.id, id: type.id })).field_schema_json,
      ).to.equal(type.field_schema_json);
      expect(await newEvents()).to.deep.equal([]);
      // With a default, the next write of each ticket fills it in: accepted.
      await update({
        id: type.id,
        field_schema_json: JSON.stringify([{ ...summary, required: true, default_value: '-' }]),
      });
      expect(await newEvents()).to.have.length(1);
    });

    it('refuses narrowing allowed_values that a ticket uses (409, singular), and takes it once none does', async () => {
      const type = await newType({ schema: [tier(['gold', 'silver', 'bronze'])] });
      await newTicket(type, { tier: 'gold' });
      const bronze = await newTicket(type, { tier: 'bronze' });
      const narrowed = JSON.stringify([tier(['gold', 'silver'])]);
      expect(await refusalOf(update({ id: type.id, field_schema_json: narrowed }))).to.deep.equal({
        kind: 'conflict',
        message: 'The new field_schema would make the stored values of 1 ticket invalid',
        validation_errors: { live_tickets: 1, deleted_tickets: 0 },
      });
      await tickets.UpdateTicket(
        {
          project_id: project.id,
          id: bronze.id,
          description: null,
          assigned_to: null,
          custom_fields_json: JSON.stringify({ tier: 'silver' }),
        },
        admin,
      );
      const updated = await update({ id: type.id, field_schema_json: narrowed });
      expect(JSON.parse(updated.field_schema_json)[0].constraints.allowed_values).to.deep.equal([
        'gold',
        'silver',
      ]);
    });

    it('a schema equal to the stored one (key order, spacing aside) is no change', async () => {
      const type = await newType({ schema: [summary] });
      await newTicket(type, {});
      // Spacing and key order are no change.
      const reordered = JSON.stringify([
        { required: false, type: 'text', label: 'Summary', name: 'summary' },
      ]);
      await update({ id: type.id, field_schema_json: reordered, name: `${type.name} renamed` });
      const [event] = await newEvents();
      expect(event!.data.changed).to.deep.equal(['name']);
    });
  });

  describe('retiring', () => {
    it('stamps retired_at, keeps listing the type, and brings it back on is_retired false', async () => {
      const type = await newType();
      const retired = await update({ id: type.id, is_retired: true });
      expect(retired.retired_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const [event] = await newEvents();
      expect(event!.data).to.deep.include({ retired_at: retired.retired_at, changed: ['retired_at'] });
      const listed = (await client.ListTicketTypes({ project_id: project.id })).ticket_types.find(
        (candidate) => candidate.id === type.id,
      );
      expect(listed?.retired_at).to.equal(retired.retired_at);
      // Retiring again keeps the first time.
      expect((await update({ id: type.id, is_retired: true })).retired_at).to.equal(retired.retired_at);
      expect(await newEvents()).to.deep.equal([]);
      const back = await update({ id: type.id, is_retired: false });
      expect(back.retired_at).to.equal(undefined);
      expect((await newEvents())[0]!.data).to.deep.include({ retired_at: null, changed: ['retired_at'] });
    });

    it('never leaves a retired type the default', async () => {
      const fallback = await newType({ projectId: otherProject.id });
      const type = await newType({ isDefault: true, projectId: otherProject.id });
      const edit = (request: Partial<lookup.UpdateTicketTypeRequest>) =>
        client.UpdateTicketType({ project_id: otherProject.id, id: type.id, ...request }, admin);
      expect(await refusalOf(edit({ is_retired: true }))).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { is_retired: ['Choose another default type before retiring this one'] },
      });
      expect(await refusalOf(edit({ is_retired: true, is_default: true }))).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { is_default: ['A retired ticket type cannot be the default'] },
      });
      // Handing the flag on first (or clearing it in the same request) lets it retire.
      await client.UpdateTicketType(
        { project_id: otherProject.id, id: fallback.id, is_default: true },
        admin,
      );
      const retired = await edit({ is_retired: true });
      expect(retired).to.deep.include({ is_default: false });
      expect(await refusalOf(edit({ is_default: true }))).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { is_default: ['A retired ticket type cannot be the default'] },
      });
      const revived = await edit({ is_retired: false, is_default: true });
      expect(revived.is_default).to.equal(true);
      expect(revived.retired_at).to.equal(undefined);
    });
  });

  it('answers 503 when the ticket service cannot count, and changes nothing', async () => {
    const deadPort = await freePort();
    const isolated = await startLookup('lookup_type_edits_alone', {
      ticketsAddress: `127.0.0.1:${deadPort}`,
      serviceDeadlineMs: 2_000,
    });
    const alone = createServiceClient('lookup', isolated.address, { deadlineMs: 10_000 });
    try {
      const own = await alone.CreateProject({ name: 'Alone', slug: 'alone', prefix: 'AL' });
      const type = await alone.CreateTicketType({ project_id: own.id, name: 'T', slug: 't' });
      const refused = await refusalOf(
        alone.UpdateTicketType({
          project_id: own.id,
          id: type.id,
          field_schema_json: JSON.stringify([summary]),
        }),
      );
      expect(refused.kind).to.equal('unavailable');
      expect((await alone.GetTicketType({ project_id: own.id, id: type.id })).field_schema_json).to.equal(
        '[]',
      );
      // Changes that need no count still work, the stored schema sent again included.
      await alone.UpdateTicketType({ project_id: own.id, id: type.id, field_schema_json: ' [ ] ' });
      expect((await alone.UpdateTicketType({ project_id: own.id, id: type.id, name: 'U' })).name).to.equal(
        'U',
      );
    } finally {
      alone.close();
      await isolated.stop();
    }
  });
});
