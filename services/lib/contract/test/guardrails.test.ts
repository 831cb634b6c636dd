import { expect } from 'chai';
import {
  AUTONOMY_ACTION_TYPES,
  defaultGuardrails,
  GUARDRAIL_BOUNDS,
  GUARDRAIL_LIMITS,
  guardrailBound,
  guardrailProblems,
  guardrailsDocumentSchema,
  guardrailsSchema,
  type NumberBound,
  thresholdBound,
} from '../src/index.js';

const PROJECT = { statuses: ['open', 'closed'], ticketTypeIds: [4, 5] };

/** The defaults with `value` at the dotted `path`. */
function withValue(path: string, value: unknown): unknown {
  const document = JSON.parse(JSON.stringify(defaultGuardrails())) as Record<string, unknown>;
  const keys = path.split('.');
  let target = document;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
  target[keys.at(-1)!] = value;
  return document;
}

const problemsAt = (path: string, value: unknown) => guardrailProblems(withValue(path, value), PROJECT);

describe("the contract's guardrails", () => {
  it('takes the defaults as a valid document, with and without a project', () => {
    expect(guardrailProblems(defaultGuardrails(), PROJECT)).to.equal(null);
    expect(guardrailsDocumentSchema().safeParse(defaultGuardrails()).success).to.equal(true);
  });

  const numberPaths: [string, NumberBound][] = [
    ...AUTONOMY_ACTION_TYPES.map((type): [string, NumberBound] => [
      `actions.${type}.threshold`,
      thresholdBound(type),
    ]),
    ...Object.entries(GUARDRAIL_BOUNDS),
  ];

  for (const [path, bound] of numberPaths)
    it(`enforces ${path} from ${bound.min} to ${bound.max}`, () => {
      const message = bound.integer
        ? `must be an integer from ${bound.min} to ${bound.max}`
        : `must be between ${bound.min} and ${bound.max}`;
      expect(guardrailBound(path)).to.deep.equal(bound);
      for (const value of [bound.min, bound.max]) expect(problemsAt(path, value), `${value}`).to.equal(null);
      const outside = bound.integer
        ? [bound.min - 1, bound.max + 1, bound.min + 0.5, '3']
        : [bound.min - 0.01, bound.max + 0.01, '0.9'];
      for (const value of outside)
        expect(problemsAt(path, value), `${String(value)}`).to.deep.equal({ [path]: [message] });
      expect(problemsAt(path, undefined)).to.deep.equal({ [path]: ['is required'] });
    });

  it('gives send_reply the higher threshold floor, every other action type 0.5, all to 0.99', () => {
    expect(thresholdBound('send_reply')).to.include({ min: 0.9, max: 0.99, step: 0.01 });
    for (const type of AUTONOMY_ACTION_TYPES.filter((type) => type !== 'send_reply'))
      expect(thresholdBound(type)).to.include({ min: 0.5, max: 0.99 });
    expect(problemsAt('actions.send_reply.threshold', 0.85)).to.deep.equal({
      'actions.send_reply.threshold': ['must be between 0.9 and 0.99'],
    });
    expect(guardrailBound('actions.teleport.threshold')).to.equal(undefined);
    expect(guardrailBound('scope.statuses')).to.equal(undefined);
  });

  it('holds each list to distinct items, at most listItems of them, each checked', () => {
    const tags = Array.from({ length: GUARDRAIL_LIMITS.listItems }, (_, index) => `t${index}`);
    expect(problemsAt('scope.exclude_tags', tags)).to.equal(null);
    expect(problemsAt('scope.exclude_tags', [...tags, 't0', ' '])).to.deep.equal({
      'scope.exclude_tags': [
        `must have at most ${GUARDRAIL_LIMITS.listItems} items`,
        'must not repeat an item',
        'a tag must be text of 1 to 50 characters',
      ],
    });
    expect(problemsAt('actions.assign.allowed_user_ids', [3, 3, 0, 2.5])).to.deep.equal({
      'actions.assign.allowed_user_ids': ['must not repeat an item', '0 is not an id', '2.5 is not an id'],
    });
    expect(problemsAt('actions.assign.allowed_user_ids', 'everyone')).to.deep.equal({
      'actions.assign.allowed_user_ids': ['must be a list of user ids or null'],
    });
    expect(problemsAt('scope.exclude_priorities', null)).to.deep.equal({
      'scope.exclude_priorities': ['must be a list of priorities'],
    });
  });

  it("checks the scope against the project's statuses and ticket types", () => {
    expect(problemsAt('scope.statuses', ['open', 'done', 7])).to.deep.equal({
      'scope.statuses': ['unknown status: done', 'unknown status: 7'],
    });
    expect(problemsAt('scope.ticket_type_ids', [4, 99, -1])).to.deep.equal({
      'scope.ticket_type_ids': ['unknown ticket type: 99', '-1 is not an id'],
    });
    expect(guardrailsDocumentSchema().safeParse(withValue('scope.statuses', ['done'])).success).to.equal(
      true,
    );
  });

  it('refuses unknown keys by their path, and __proto__ at the object that holds it', () => {
    expect(problemsAt('actions.assign.colour', 'red')).to.deep.equal({
      'actions.assign.colour': ['unknown key'],
    });
    const document = withValue('limits', JSON.parse('{"__proto__": 1, "max_actions_per_hour": 1}'));
    expect(guardrailProblems(document, PROJECT)).to.deep.equal({
      limits: ['unknown key: __proto__'],
      'limits.max_actions_per_ticket': ['is required'],
    });
  });

  it('describes GET: the version first, the document, then who saved it when', () => {
    const shown = {
      version: 2,
      ...defaultGuardrails(),
      updated_at: '2025-03-14T08:00:00.000Z',
      updated_by: null,
    };
    expect(guardrailsSchema.parse(shown)).to.deep.equal(shown);
    expect(Object.keys(guardrailsSchema.shape)).to.deep.equal([
      'version',
      'actions',
      'scope',
      'limits',
      'review',
      'auto_pause',
      'updated_at',
      'updated_by',
    ]);
  });
});
