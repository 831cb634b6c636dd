import { expect } from 'chai';
import { computeClocks, type SlaEvent, type TicketFacts } from '../../src/index.js';
import { calendar, policy, week, WORKDAYS } from './support.js';

const T0 = Date.parse('2026-06-01T00:00:00Z'); // a Monday
const m = (minutes: number): Date => new Date(T0 + minutes * 60_000);
const facts: TicketFacts = {
  priority: 'high',
  ticket_type: 'bug',
  organization: null,
  requester: '1',
  tags: [],
  custom_fields: {},
};
const created: SlaEvent = { type: 'created', at: m(0), facts, status: 'open' };
const calendars = { office: calendar({ time_zone: 'UTC', hours: week(WORKDAYS, [['09:00', '17:00']]) }) };

const calendarMinutes = policy({
  id: 'cal',
  targets: {
    first_response: { minutes: 30, mode: 'calendar', warn_before_minutes: 10 },
    next_response: { minutes: 20, mode: 'calendar' },
    resolution: { minutes: 60, mode: 'calendar', pause_statuses: ['waiting'] },
    periodic_update: { minutes: 45, mode: 'calendar' },
  },
});

function clocks(history: SlaEvent[], now: number, policies = [calendarMinutes]) {
  const result = computeClocks({ policies, calendars, history, now: m(now) });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}
const of = (value: ReturnType<typeof clocks>, kind: string) => value.targets.find((t) => t.target === kind);

describe('computeClocks', () => {
  it('first response: active with its due and warning times, met by the first public staff reply', () => {
    const before = clocks([created], 5);
    expect(of(before, 'first_response')).to.include({
      state: 'active',
      elapsed_minutes: 5,
      remaining_minutes: 25,
    });
    expect(of(before, 'first_response')!.due_at).to.deep.equal(m(30));
    expect(of(before, 'first_response')!.warning_at).to.deep.equal(m(20));
    expect(before.next_breach_at).to.deep.equal(m(30));
    expect(before.next_warning_at).to.deep.equal(m(20));
    const after = clocks([created, { type: 'staff_public_reply', at: m(12) }], 40);
    expect(of(after, 'first_response')).to.include({ state: 'met', due_at: null });
    expect(of(after, 'first_response')!.met_at).to.deep.equal(m(12));
  });

  it('a late reply leaves the target breached, with both instants', () => {
    const late = of(clocks([created, { type: 'staff_public_reply', at: m(50) }], 60), 'first_response')!;
    expect(late.state).to.equal('breached');
    expect(late.breached_at).to.deep.equal(m(30));
    expect(late.met_at).to.deep.equal(m(50));
  });

  it('next response starts at a customer message after a staff reply, and is met by the next one', () => {
    const history: SlaEvent[] = [
      created,
      { type: 'customer_message', at: m(1) }, // before any staff reply: first response covers it
      { type: 'staff_public_reply', at: m(5) },
      { type: 'customer_message', at: m(10) },
      { type: 'customer_message', at: m(15) }, // the running cycle is not restarted
    ];
    expect(of(clocks(history.slice(0, 3), 8), 'next_response')).to.equal(undefined);
    const running = of(clocks(history, 20), 'next_response')!;
    expect(running).to.include({ state: 'active', elapsed_minutes: 10 });
    expect(running.due_at).to.deep.equal(m(30));
    const met = of(clocks([...history, { type: 'staff_public_reply', at: m(25) }], 26), 'next_response')!;
    expect(met.state).to.equal('met');
  });

  it('resolution: met when closed; a reopened ticket resumes with its elapsed time; paused statuses do not count', () => {
    const history: SlaEvent[] = [
      created,
      { type: 'status_changed', at: m(10), to: 'waiting', closed: false },
      { type: 'status_changed', at: m(20), to: 'open', closed: false },
      { type: 'status_changed', at: m(30), to: 'closed', closed: true },
    ];
    const closed = clocks(history, 40);
    expect(of(closed, 'resolution')).to.include({ state: 'met', elapsed_minutes: 20 });
    // Closed pauses the other targets.
    expect(of(closed, 'periodic_update')).to.include({ state: 'paused', elapsed_minutes: 30, due_at: null });
    const reopened = clocks(
      [...history, { type: 'status_changed', at: m(100), to: 'open', closed: false }],
      110,
    );
    expect(of(reopened, 'resolution')).to.include({ state: 'active', elapsed_minutes: 30, met_at: null });
    expect(of(reopened, 'resolution')!.due_at).to.deep.equal(m(140));
  });

  it('periodic update restarts at every public staff reply', () => {
    const value = clocks([created, { type: 'staff_public_reply', at: m(40) }], 50);
    const periodic = of(value, 'periodic_update')!;
    expect(periodic.started_at).to.deep.equal(m(40));
    expect(periodic.due_at).to.deep.equal(m(85));
  });

  it('business minutes count on the calendar; a priority change re-selects the policy and keeps elapsed time', () => {
    const business = policy({
      id: 'urgent',
      calendar_id: 'office',
      filter: { priorities: ['critical'] },
      targets: { resolution: { minutes: 120, mode: 'business' } },
    });
    const slow = policy({
      id: 'slow',
      calendar_id: 'office',
      targets: { resolution: { minutes: 600, mode: 'business' } },
    });
    const history: SlaEvent[] = [
      { ...created, at: m(8 * 60) }, // Monday 08:00: the office opens at 09:00
      { type: 'facts_changed', at: m(10 * 60), facts: { priority: 'critical' } },
    ];
    const value = clocks(history, 10 * 60, [business, slow]);
    expect(value.policy_id).to.equal('urgent');
    expect(of(value, 'resolution')).to.include({ elapsed_minutes: 60, remaining_minutes: 60 });
    expect(of(value, 'resolution')!.due_at).to.deep.equal(m(11 * 60));
    // Lowering the target below the elapsed time breaches at once.
    const tight = policy({
      id: 'urgent',
      calendar_id: 'office',
      targets: { resolution: { minutes: 30, mode: 'business' } },
    });
    const edited = clocks(
      [...history, { type: 'policies_changed', at: m(10 * 60 + 5), policies: [tight] }],
      11 * 60,
      [business, slow],
    );
    expect(of(edited, 'resolution')!.breached_at).to.deep.equal(m(10 * 60 + 5));
  });

  it('skips a policy whose calendar is unknown; no policy, no clocks', () => {
    const orphan = policy({
      id: 'orphan',
      calendar_id: 'gone',
      targets: { resolution: { minutes: 5, mode: 'business' } },
    });
    expect(clocks([created], 1, [orphan])).to.deep.equal({
      policy_id: null,
      targets: [],
      next_breach_at: null,
      next_warning_at: null,
    });
  });

  it('answers a malformed history with errors, never an exception', () => {
    const bad: unknown[] = [
      [],
      [{ type: 'customer_message', at: m(0) }],
      [created, { type: 'teleported', at: m(1) }],
      [created, { type: 'customer_message', at: m(-5) }],
      [created, { type: 'status_changed', at: m(1), to: 'x' }],
      [created, { type: 'customer_message', at: new Date('nope') }],
      [created, { type: 'facts_changed', at: m(1), facts: 'vip' }],
      [created, { type: 'policies_changed', at: m(1), policies: { p: 1 } }],
      [created, { type: 'calendar_changed', at: m(1), calendar_id: 'office', calendar: 'closed' }],
      [{ ...created, facts: null }],
    ];
    for (const history of bad) {
      const result = computeClocks({
        policies: [calendarMinutes],
        calendars,
        history: history as SlaEvent[],
        now: m(10),
      });
      expect(result.ok, JSON.stringify(history)).to.equal(false);
    }
    expect(
      computeClocks({ policies: [calendarMinutes], calendars, history: [created], now: m(-1) }),
    ).to.deep.equal({
      ok: false,
      errors: { history: ['now is earlier than the last event'] },
    });
  });
});
