import { expect } from 'chai';
import {
  questionTicket,
  refusalOf,
  startTicketFixture,
  type TicketFixture,
  ticketOf,
  ticketsOf,
} from './support.js';
import { suiteFixture } from '@tix/kit/testing';

const NOW = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('tickets: CreateTicket', () => {
  const f = suiteFixture(() => startTicketFixture());

  it('creates a ticket in the first status with defaults applied, numbered PREFIX-n', async () => {
    const created = ticketOf(await f.client.CreateTicket(questionTicket(f.demo), f.agent));
    expect(created.created_at).to.match(NOW);
    expect(created).to.deep.equal({
      id: created.id,
      project_id: f.demo.support.id,
      ticket_type_id: f.demo.types.question.id,
      project_ref_id: 1,
      ticket_number: 'SUP-1',
      title: 'Cannot log in',
      description: null,
      status: 'open',
      status_label: 'Open',
      priority: 'medium',
      priority_label: 'Medium',
      assigned_to: null,
      created_by: f.demo.users.agent.id,
      updated_by: null,
      custom_fields: { product: 'web', vip: false },
      source_type: 'api',
      merged_into_id: null,
      version: 1,
      created_at: created.created_at,
      updated_at: created.created_at,
      tags: [],
      resolution_type: null,
      requester_id: null,
      cc: [],
      closed_at: null,
    });
  });

  it('stores every given field: trimmed title, description, priority, assignee, custom fields, tags', async () => {
    const created = ticketOf(
      await f.client.CreateTicket(
        questionTicket(f.demo, {
          title: '  Invoice is wrong  ',
          description: '## Steps\n\n1. open invoice',
          priority: 'critical',
          assigned_to: f.demo.users.lead.id,
          custom_fields_json: JSON.stringify({ product: 'api', contact_email: 'ann@example.com', vip: true }),
          tags: [' Billing', 'VIP', 'billing'],
        }),
        f.as(f.demo.users.admin, 'session'),
      ),
    );
    expect(created).to.deep.include({
      title: 'Invoice is wrong',
      description: '## Steps\n\n1. open invoice',
      priority: 'critical',
      priority_label: 'Critical',
      assigned_to: f.demo.users.lead.id,
      created_by: f.demo.users.admin.id,
      custom_fields: { product: 'api', contact_email: 'ann@example.com', vip: true },
      tags: ['billing', 'vip'],
      source_type: 'web',
    });
    const got = await f.client.GetTicket({ project_id: f.demo.support.id, id: created.id }, f.agent);
    expect(ticketOf(got)).to.deep.equal(created);
  });

  it('starts tickets of a custom workflow in its first status, numbered per project', async () => {
    const created = await f.client.CreateTicket(
      {
        project_id: f.demo.platform.id,
        ticket_type_id: f.demo.types.task.id,
        title: 'Rotate certificates',
        custom_fields_json: '',
      },
      f.agent,
    );
    expect(ticketOf(created)).to.deep.include({
      status: 'triage',
      status_label: 'Triage',
      project_ref_id: 1,
      ticket_number: 'PLAT-1',
    });
  });

  it('treats assigned_to 0 as unassigned', async () => {
    const created = await f.client.CreateTicket(questionTicket(f.demo, { assigned_to: 0 }), f.agent);
    expect(ticketOf(created).assigned_to).to.equal(null);
  });

  it('refuses a ticket type of another project, and an unknown one', async () => {
    for (const ticket_type_id of [f.demo.types.incident.id, 9999]) {
      expect(
        await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { ticket_type_id }), f.agent)),
      ).to.deep.equal({
        kind: 'validation_failed',
        message: 'Validation failed',
        validation_errors: { ticket_type_id: ['Ticket type not found in this project'] },
      });
    }
  });

  it('refuses an unknown or inactive assignee', async () => {
    const user = await f.lookup.CreateUser({ name: 'Gone', email: 'gone@example.com', role: 'agent' });
    await f.lookupSql.query('UPDATE users SET is_active = false WHERE id = $1', [user.id]);
    expect(
      await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { assigned_to: user.id }), f.agent)),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { assigned_to: [`User ${user.id} is not active`] },
    });
    expect(
      await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { assigned_to: 99999 }), f.agent)),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { assigned_to: ['User 99999 does not exist'] },
    });
  });

  it('reports every problem of the ticket fields at once', async () => {
    expect(
      await refusalOf(
        f.client.CreateTicket(
          questionTicket(f.demo, {
            title: 'x'.repeat(201),
            description: 'd'.repeat(5001),
            priority: 'urgent',
            tags: ['x'.repeat(51)],
          }),
          f.agent,
        ),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        title: ['Title must be at most 200 characters'],
        description: ['Description must be at most 5000 characters'],
        priority: ['Priority must be one of low, medium, high, critical'],
        tags: ['Each tag must be 1 to 50 characters'],
      },
    });
  });

  it('counts the title in code points and refuses a whitespace-only title', async () => {
    const emoji = await f.client.CreateTicket(questionTicket(f.demo, { title: '🎫'.repeat(200) }), f.agent);
    expect([...ticketOf(emoji).title]).to.have.length(200);
    expect(
      await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { title: ' \t ' }), f.agent)),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { title: ['Title is required'] },
    });
  });

  describe('custom fields through the real ticket types', () => {
    /** A CreateTicket request in `project` of `type`, whose custom fields are the one argument. */
    const withFields =
      (project: { id: number }, type: { id: number }, title: string) => (fields: object) => ({
        project_id: project.id,
        ticket_type_id: type.id,
        title,
        custom_fields_json: JSON.stringify(fields),
      });
    const refuse = async (request: Parameters<TicketFixture['client']['CreateTicket']>[0]) =>
      (await refusalOf(f.client.CreateTicket(request, f.agent))).validation_errors;

    it('select, email, boolean and unknown keys (question)', async () => {
      expect(
        await refuse(
          questionTicket(f.demo, {
            custom_fields_json: JSON.stringify({
              product: 'desktop',
              contact_email: 'nope',
              vip: 'yes',
              extra: 1,
            }),
          }),
        ),
      ).to.deep.equal({
        'custom_fields.extra': ['Unknown field'],
        'custom_fields.product': ['Product must be one of: web, mobile, api'],
        'custom_fields.contact_email': ['Contact email must be a valid email address'],
        'custom_fields.vip': ['VIP customer must be true or false'],
      });
      expect(await refuse(questionTicket(f.demo, { custom_fields_json: '{"product":null}' }))).to.deep.equal({
        'custom_fields.product': ['Product is required'],
      });
    });

    it('custom_fields that are not a JSON object', async () => {
      for (const custom_fields_json of ['[1]', '{bad', '"text"'])
        expect(await refuse(questionTicket(f.demo, { custom_fields_json }))).to.deep.equal({
          custom_fields: ['custom_fields must be an object'],
        });
    });

    it('text pattern, textarea length, url and strict dates (bug report)', async () => {
      const request = withFields(f.demo.support, f.demo.types.bug_report, 'Crash');
      expect(
        await refuse(
          request({
            version: 'v1',
            steps_to_reproduce: 'short',
            screenshot_url: 'ftp://x',
            occurred_on: '2024-02-30',
          }),
        ),
      ).to.deep.equal({
        'custom_fields.version': ['Version does not match the required format'],
        'custom_fields.steps_to_reproduce': ['Steps to reproduce must be at least 10 characters'],
        'custom_fields.screenshot_url': ['Screenshot must be a valid http or https URL'],
        'custom_fields.occurred_on': ['Occurred on must be a valid date in YYYY-MM-DD format'],
      });
      const valid = {
        version: '2.4.1',
        steps_to_reproduce: 'Open the app and tap save twice.',
        screenshot_url: 'https://example.com/s.png',
        occurred_on: '2024-02-29',
      };
      const created = await f.client.CreateTicket(request(valid), f.agent);
      expect(ticketOf(created).custom_fields).to.deep.equal(valid);
    });

    it('select default, datetime, number range and multi_select (incident)', async () => {
      const request = withFields(f.demo.platform, f.demo.types.incident, 'Outage');
      expect(
        await refuse(
          request({
            severity: 'sev9',
            started_at: '2024-01-01 10:00',
            affected_users: -1,
            components: ['api', 'printer'],
          }),
        ),
      ).to.deep.equal({
        'custom_fields.severity': ['Severity must be one of: sev1, sev2, sev3'],
        'custom_fields.started_at': [
          'Started at must be a valid date-time with seconds and a time zone, e.g. 2024-05-01T09:30:00Z',
        ],
        'custom_fields.affected_users': ['Affected users must be at least 0'],
        'custom_fields.components': ['Components may only contain: api, web, database, queue'],
      });
      expect(await refuse(request({ affected_users: '12', components: 'api' }))).to.deep.equal({
        'custom_fields.affected_users': ['Affected users must be a number'],
        'custom_fields.components': ['Components must be an array of values'],
      });
      const created = await f.client.CreateTicket(
        request({
          started_at: '2024-05-01T09:30:00+02:00',
          affected_users: 1500,
          components: ['api', 'queue'],
        }),
        f.agent,
      );
      expect(ticketOf(created).custom_fields).to.deep.equal({
        severity: 'sev3',
        started_at: '2024-05-01T07:30:00.000Z',
        affected_users: 1500,
        components: ['api', 'queue'],
      });
    });
  });

  it('refuses a write without a principal (401) and an unknown project (404)', async () => {
    expect(await refusalOf(f.client.CreateTicket(questionTicket(f.demo)))).to.deep.equal({
      kind: 'unauthenticated',
      message: 'Authentication required',
    });
    expect(
      await refusalOf(f.client.CreateTicket(questionTicket(f.demo, { project_id: 4242 }), f.agent)),
    ).to.deep.equal({ kind: 'not_found', message: 'Project not found' });
  });

  it('numbers 50 parallel creates in one project 1..50, distinct and gap-free', async () => {
    const project = await f.lookup.CreateProject({ name: 'Burst', slug: 'burst', prefix: 'BUR' });
    const type = await f.lookup.CreateTicketType({ project_id: project.id, name: 'Task', slug: 'task' });
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        f.client.CreateTicket(
          {
            project_id: project.id,
            ticket_type_id: type.id,
            title: `Burst ${index}`,
            custom_fields_json: '',
          },
          f.agent,
        ),
      ),
    );
    const numbers = created.map((ticket) => ticketOf(ticket).project_ref_id).sort((a, b) => a - b);
    expect(numbers).to.deep.equal(Array.from({ length: 50 }, (_, index) => index + 1));
    expect(new Set(created.map((ticket) => ticketOf(ticket).ticket_number)).size).to.equal(50);
    // Every one landed in the open lane, each at its own position.
    const board = await f.client.GetBoard({ project_id: project.id, lane_limit: 500 }, f.agent);
    expect(board.lanes[0]).to.deep.include({ status: 'open', count: 50 });
    expect(ticketsOf(board.lanes[0])).to.have.length(50);
  });
});
