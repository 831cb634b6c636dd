/**
 * Ticket-type administration on the session host, through the real fleet: an admin renames a type,
 * makes it the default and adds fields; a field_schema that stored tickets would break is refused
 * with their count (the lookup service asks the ticket service); a retired type keeps its tickets
 * and stays listed but takes no new ones; anyone but an admin is refused.
 */
import { expect } from 'chai';
import { eventually, expectError } from '@tix/kit/testing';
import { createProject, createUser, type ProjectFixture } from '../support/fixtures.js';
import { signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'correct horse battery staple';

const tier = (allowed: string[]) => ({
  name: 'tier',
  label: 'Tier',
  type: 'select',
  required: false,
  constraints: { allowed_values: allowed },
});
const summary = { name: 'summary', label: 'Summary', type: 'text', required: false };

interface TicketTypeJson {
  id: number;
  name: string;
  slug: string;
  is_default: boolean;
  field_schema: { name: string; constraints: Record<string, unknown> }[];
  retired_at: string | null;
}

describe('the session host: ticket-type administration', function () {
  this.timeout(60_000);
  let project: ProjectFixture;
  let other: ProjectFixture;
  let admin: BrowserSession;
  let agent: BrowserSession;
  let inProject: string;
  let type: TicketTypeJson;
  const ticketIds: number[] = [];

  before(async () => {
    project = await createProject();
    other = await createProject();
    inProject = `project=${project.slug}`;
    admin = await signIn((await createUser('admin', { password: PASSWORD })).email, PASSWORD);
    agent = await signIn((await createUser('agent', { password: PASSWORD })).email, PASSWORD);
    const created = await admin.call('POST', `/ticket-types?${inProject}`, {
      name: 'Request',
      slug: 'request',
      field_schema: [tier(['gold', 'silver', 'bronze'])],
    });
    expect(created.status, created.text).to.equal(201);
    type = created.body.data.ticket_type as TicketTypeJson;
    expect(type.retired_at).to.equal(null);
    for (const value of ['gold', 'bronze', 'bronze']) {
      const ticket = await agent.call('POST', `/tickets?${inProject}`, {
        ticket_type_id: type.id,
        title: `A ${value} request`,
        custom_fields: { tier: value },
      });
      expect(ticket.status, ticket.text).to.equal(201);
      ticketIds.push(ticket.body.data.ticket.id as number);
    }
  });

  const patch = (id: number, body: unknown, session = admin, query = inProject) =>
    session.call('PATCH', `/ticket-types/${id}?${query}`, body);

  it('an admin renames a type, makes it the default and adds an optional field: 200 { ticket_type }', async () => {
    const response = await patch(type.id, {
      name: 'Customer request',
      is_default: true,
      field_schema: [tier(['gold', 'silver', 'bronze']), summary],
    });
    expect(response.status, response.text).to.equal(200);
    const updated = response.body.data.ticket_type as TicketTypeJson;
    expect(updated).to.deep.include({
      id: type.id,
      name: 'Customer request',
      slug: 'request',
      is_default: true,
    });
    expect(updated.field_schema.map((field) => field.name)).to.deep.equal(['tier', 'summary']);
    const listed = await agent.call('GET', `/ticket-types?${inProject}`);
    expect(listed.body.data.ticket_types).to.deep.equal([updated]);
  });

  it('refuses a required field the stored tickets lack: 409 with the count, nothing changed', async () => {
    const response = await patch(type.id, {
      field_schema: [tier(['gold', 'silver', 'bronze']), { ...summary, required: true }],
    });
    expectError(response, 409, 'The new field_schema would make the stored values of 3 tickets invalid', {
      live_tickets: 3,
      deleted_tickets: 0,
    });
    const listed = await admin.call('GET', `/ticket-types?${inProject}`);
    expect(listed.body.data.ticket_types[0].field_schema[1].required).to.equal(false);
  });

  it('refuses narrowing allowed_values that tickets use: 409 with the count', async () => {
    expectError(
      await patch(type.id, { field_schema: [tier(['gold', 'silver']), summary] }),
      409,
      'The new field_schema would make the stored values of 2 tickets invalid',
      { live_tickets: 2, deleted_tickets: 0 },
    );
  });

  it('refuses anyone but an admin (403), and answers 404, 400 and 422 like every route', async () => {
    expectError(
      await patch(type.id, { name: 'Mine' }, agent),
      403,
      'Your role (agent) does not allow this; it needs admin or higher',
    );
    expectError(
      await patch(type.id, { name: 'Elsewhere' }, admin, `project=${other.slug}`),
      404,
      'Ticket type not found',
    );
    expectError(await patch(2_000_000_000, { name: 'Nobody' }), 404, 'Ticket type not found');
    expectError(await patch(0, { name: 'Zero' }), 400, 'Invalid ticket type id');
    expectError(await patch(type.id, { is_default: 'yes', field_schema: {} }), 422, 'Validation failed', [
      'is_default',
      'field_schema',
    ]);
    expectError(await patch(type.id, {}), 422, 'Validation failed', ['body']);
  });

  describe('retiring', () => {
    it('refuses to retire the default until another type is the default', async () => {
      expectError(await patch(type.id, { is_retired: true }), 422, 'Validation failed', {
        is_retired: ['Choose another default type before retiring this one'],
      });
      const created = await admin.call('POST', `/ticket-types?${inProject}`, { name: 'Task', slug: 'task' });
      expect(created.status, created.text).to.equal(201);
      const made = await patch(created.body.data.ticket_type.id as number, { is_default: true });
      expect(made.status, made.text).to.equal(200);
    });

    it('retires a type: listed with retired_at, no new tickets (422), old tickets readable with their values', async () => {
      const retired = await patch(type.id, { is_retired: true });
      expect(retired.status, retired.text).to.equal(200);
      const retiredAt = retired.body.data.ticket_type.retired_at as string;
      expect(retiredAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const listed = await agent.call('GET', `/ticket-types?${inProject}`);
      const found = (listed.body.data.ticket_types as TicketTypeJson[]).find((each) => each.id === type.id);
      expect(found).to.deep.include({ retired_at: retiredAt, is_default: false });

      // The ticket service forgets its cached type when it hears ticket_type.updated.
      const refused = await eventually(async () => {
        const response = await agent.call('POST', `/tickets?${inProject}`, {
          ticket_type_id: type.id,
          title: 'Too late',
        });
        return response.status === 422 ? response : undefined;
      }, 10_000);
      expectError(refused, 422, 'Validation failed', { ticket_type_id: ['Ticket type is retired'] });

      const old = await agent.call('GET', `/tickets/${ticketIds[0]}?${inProject}`);
      expect(old.status, old.text).to.equal(200);
      expect(old.body.data.ticket).to.deep.include({
        ticket_type_id: type.id,
        custom_fields: { tier: 'gold' },
      });
    });
  });
});
