import { expect } from 'chai';
import {
  MAX_TARGET_MINUTES,
  selectPolicy,
  type TicketFacts,
  validatePolicies,
  validatePolicy,
} from '../../src/index.js';
import { policy } from './support.js';

const target = (minutes: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  minutes,
  mode: 'business',
  ...extra,
});
const facts = (over: Partial<TicketFacts> = {}): TicketFacts => ({
  priority: 'high',
  ticket_type: 'bug',
  organization: '7',
  requester: '42',
  tags: ['vip'],
  custom_fields: { plan: 'gold', regions: ['eu', 'us'] },
  ...over,
});

describe('validatePolicy', () => {
  it('accepts every target kind, with defaults filled in', () => {
    const result = validatePolicy({
      id: 'gold',
      name: 'Gold',
      calendar_id: 'office',
      filter: { priorities: ['high', 'critical'], organizations: [7], tags_any: ['vip'] },
      targets: {
        first_response: target(60, { warn_before_minutes: 15, pause_statuses: ['waiting'] }),
        next_response: target(240),
        resolution: target(MAX_TARGET_MINUTES, { mode: 'calendar', pause_statuses: ['waiting', 'on_hold'] }),
        periodic_update: target(1),
      },
    });
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.value.filter.organizations).to.deep.equal(['7']);
    expect(result.value.targets.next_response).to.deep.equal({
      minutes: 240,
      mode: 'business',
      pause_statuses: [],
      warn_before_minutes: null,
    });
  });

  it('refuses targets of 0 and of 10 years', () => {
    const message = `minutes must be a whole number from 1 to ${MAX_TARGET_MINUTES} (365 days)`;
    const result = validatePolicy({
      id: 'p',
      calendar_id: 'c',
      targets: {
        first_response: target(0),
        resolution: target(10 * 365 * 24 * 60),
        next_response: target(1.5),
      },
    });
    expect(result).to.deep.equal({
      ok: false,
      errors: {
        'targets.first_response.minutes': [message],
        'targets.resolution.minutes': [message],
        'targets.next_response.minutes': [message],
      },
    });
  });

  it('refuses contradictory and empty filters', () => {
    const result = validatePolicy({
      id: 'p',
      calendar_id: 'c',
      filter: { tags_all: ['vip', 'billing'], tags_none: ['billing'], priorities: [] },
      targets: { resolution: target(60) },
    });
    expect(result).to.deep.equal({
      ok: false,
      errors: {
        'filter.priorities': ['must not be empty (an empty list matches no ticket; leave the criterion out)'],
        filter: ['contradictory filter: tag "billing" is both in tags_all and tags_none'],
      },
    });
    expect(
      validatePolicy({
        id: 'p',
        calendar_id: 'c',
        filter: { tags_any: ['a'], tags_none: ['a', 'b'] },
        targets: { resolution: target(60) },
      }),
    ).to.deep.equal({
      ok: false,
      errors: { filter: ['contradictory filter: every tag of tags_any is in tags_none'] },
    });
  });

  it('refuses business targets without a calendar, late warnings, unknown keys, no targets', () => {
    expect(
      validatePolicy({
        id: 'p',
        targets: { resolution: target(60, { warn_before_minutes: 60 }) },
        colour: 'red',
      }),
    ).to.deep.equal({
      ok: false,
      errors: {
        colour: ['Unknown property'],
        'targets.resolution.warn_before_minutes': ['warn_before_minutes must be less than minutes'],
      },
    });
    expect(validatePolicy({ id: 'p', targets: { resolution: target(60) } })).to.deep.equal({
      ok: false,
      errors: { calendar_id: ['business-minute targets need a calendar_id'] },
    });
    expect(validatePolicy({ id: 'p', targets: {} })).to.deep.equal({
      ok: false,
      errors: { targets: ['a policy needs at least one target'] },
    });
    expect(
      validatePolicy({ id: 'p', calendar_id: 'x', targets: { resolution: target(5) } }, new Set(['office'])),
    ).to.deep.equal({
      ok: false,
      errors: { calendar_id: ['calendar x does not exist'] },
    });
    expect(
      validatePolicy({
        id: 'p',
        targets: {
          eventually: target(5),
          resolution: { minutes: 5, mode: 'sometimes', pause_statuses: ['Not A Slug'] },
        },
      }),
    ).to.deep.equal({
      ok: false,
      errors: {
        'targets.eventually': ['Unknown target (first_response, next_response, resolution, periodic_update)'],
        'targets.resolution.mode': ['mode must be "business" or "calendar"'],
        'targets.resolution.pause_statuses': ['pause_statuses must be an array of status slugs'],
      },
    });
  });

  it('validatePolicies refuses a repeated id, with paths per policy', () => {
    const one = { id: 'p', calendar_id: 'c', targets: { resolution: target(5) } };
    expect(validatePolicies([one, one])).to.deep.equal({
      ok: false,
      errors: { 'policies[1].id': ['id "p" is used twice'] },
    });
  });

  it('answers garbage with errors, never an exception', () => {
    for (const input of [
      null,
      'x',
      [],
      { id: {}, filter: [], targets: [] },
      { id: 'p', filter: { custom_fields: { 'Bad Name': [1] } }, targets: { resolution: 5 } },
    ])
      expect(validatePolicy(input).ok).to.equal(false);
  });
});

describe('selectPolicy', () => {
  const vip = policy({
    id: 'vip',
    calendar_id: 'c',
    filter: { tags_all: ['vip'], priorities: ['high'] },
    targets: { resolution: target(60) },
  });
  const eu = policy({
    id: 'eu',
    calendar_id: 'c',
    filter: { custom_fields: { regions: ['eu'] } },
    targets: { resolution: target(60) },
  });
  const rest = policy({ id: 'rest', calendar_id: 'c', targets: { resolution: target(60) } });

  it('takes the first match in order', () => {
    expect(selectPolicy([vip, eu, rest], facts())?.id).to.equal('vip');
    expect(selectPolicy([eu, vip, rest], facts())?.id).to.equal('eu');
    expect(selectPolicy([vip, eu, rest], facts({ priority: 'low', custom_fields: {} }))?.id).to.equal('rest');
    expect(selectPolicy([vip, eu], facts({ tags: [], custom_fields: { regions: ['us'] } }))).to.equal(null);
  });

  it('matches a multi-value custom field by any of its values, and a missing organization by nothing', () => {
    expect(selectPolicy([eu], facts({ custom_fields: { regions: ['us', 'eu'] } }))?.id).to.equal('eu');
    const org = policy({
      id: 'org',
      calendar_id: 'c',
      filter: { organizations: ['7'] },
      targets: { resolution: target(60) },
    });
    expect(selectPolicy([org], facts({ organization: null }))).to.equal(null);
  });

  it('skips the policies the caller cannot use', () => {
    expect(selectPolicy([vip, rest], facts(), (p) => p.id !== 'vip')?.id).to.equal('rest');
  });
});
