/** Calendars and policies over gRPC (src/definitions.ts): per project, ordered, validated, in use. */
import { expect } from 'chai';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { refusalOf } from '@tix/kit/testing';
import { startTestSlaServer, type TestSlaServer } from '../../src/testing.js';

const ALWAYS = JSON.stringify({ time_zone: 'UTC', always_open: true });
const policy = (name: string, calendarId: string | null = null) =>
  JSON.stringify({
    name,
    calendar_id: calendarId,
    filter: { priorities: ['high'] },
    targets: { first_response: { minutes: 30, mode: calendarId ? 'business' : 'calendar' } },
  });

describe('sla service: calendars and policies', function () {
  this.timeout(60_000);
  let service: TestSlaServer;
  let client: ServiceClient<'sla'>;

  before(async () => {
    // No event reaches this one: lookup is never asked.
    service = await startTestSlaServer({ lookupAddress: '127.0.0.1:9', label: 'sla_definitions' });
    client = createServiceClient('sla', service.address, { deadlineMs: 10_000 });
  });
  after(async () => {
    client?.close();
    await service?.stop();
  });

  it('keeps calendars per project; a calendar in use is not deleted', async () => {
    const calendar = await client.CreateCalendar({ project_id: 1, name: ' Office ', calendar_json: ALWAYS });
    expect(calendar).to.include({ project_id: 1, name: 'Office' });
    // Stored as validated (normalised: every weekday, no holidays).
    expect(JSON.parse(calendar.calendar_json)).to.include({ time_zone: 'UTC', always_open: true });
    expect(await refusalOf(client.GetCalendar({ project_id: 2, id: calendar.id }))).to.deep.equal({
      kind: 'not_found',
      message: 'Calendar not found',
    });
    expect(await refusalOf(client.GetCalendar({ project_id: 1, id: 'nope' }))).to.include({
      kind: 'not_found',
    });
    const used = await client.CreatePolicy({ project_id: 1, policy_json: policy('Business', calendar.id) });
    expect((await refusalOf(client.DeleteCalendar({ project_id: 1, id: calendar.id }))).kind).to.equal(
      'conflict',
    );
    await client.DeletePolicy({ project_id: 1, id: used.id });
    expect(await client.DeleteCalendar({ project_id: 1, id: calendar.id })).to.deep.equal({
      message: 'Calendar deleted',
    });
    expect((await client.ListCalendars({ project_id: 1 })).calendars).to.deep.equal([]);
  });

  it('orders policies: appended, placed at a position, moved, closed up on delete', async () => {
    const a = await client.CreatePolicy({ project_id: 3, policy_json: policy('A') });
    const b = await client.CreatePolicy({ project_id: 3, policy_json: policy('B') });
    const c = await client.CreatePolicy({ project_id: 3, policy_json: policy('C'), position: 0 });
    const names = async () =>
      (await client.ListPolicies({ project_id: 3 })).policies.map((p) => [
        JSON.parse(p.policy_json).name,
        p.position,
      ]);
    expect(await names()).to.deep.equal([
      ['C', 0],
      ['A', 1],
      ['B', 2],
    ]);
    await client.UpdatePolicy({ project_id: 3, id: c.id, policy_json: policy('C2'), position: 2 });
    expect(await names()).to.deep.equal([
      ['A', 0],
      ['B', 1],
      ['C2', 2],
    ]);
    await client.DeletePolicy({ project_id: 3, id: a.id });
    expect(await names()).to.deep.equal([
      ['B', 0],
      ['C2', 1],
    ]);
    expect(JSON.parse((await client.GetPolicy({ project_id: 3, id: b.id })).policy_json).id).to.equal(b.id);
    expect(
      await refusalOf(client.CreatePolicy({ project_id: 3, policy_json: policy('D'), position: 5 })),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { position: ['position must be from 0 to 2'] },
    });
  });

  it('refuses an unknown calendar, a given id and malformed JSON with field errors', async () => {
    expect(
      (
        await refusalOf(
          client.CreatePolicy({
            project_id: 4,
            policy_json: policy('X', '00000000-0000-4000-8000-000000000000'),
          }),
        )
      ).validation_errors,
    ).to.deep.equal({ calendar_id: ['calendar 00000000-0000-4000-8000-000000000000 does not exist'] });
    expect(
      (
        await refusalOf(
          client.CreatePolicy({
            project_id: 4,
            policy_json: JSON.stringify({ id: 'mine', filter: {}, targets: {} }),
          }),
        )
      ).validation_errors,
    ).to.deep.equal({ id: ['id is assigned by the service'] });
    expect(
      (await refusalOf(client.CreatePolicy({ project_id: 4, policy_json: '[' }))).validation_errors,
    ).to.deep.equal({
      policy_json: ['policy_json must be JSON'],
    });
    expect(
      (await refusalOf(client.CreateCalendar({ project_id: 0, name: 'x', calendar_json: ALWAYS })))
        .validation_errors,
    ).to.deep.equal({
      project_id: ['project_id must be a positive integer'],
    });
    expect((await client.ListPolicies({ project_id: 4 })).policies).to.deep.equal([]);
  });

  it('answers the SLA of known tickets only, and refuses more than 1,000 ids', async () => {
    expect(await client.GetTicketSla({ ticket_ids: [1, 2, 3] })).to.deep.equal({ tickets: [] });
    const ids = Array.from({ length: 1_001 }, (_, index) => index + 1);
    expect(await refusalOf(client.GetTicketSla({ ticket_ids: ids }))).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: { ticket_ids: ['at most 1000 ticket ids'] },
    });
  });
});
