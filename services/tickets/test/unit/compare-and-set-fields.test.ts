/** The pure parts of compare-and-set: reading expectations and sets, mismatches, position tokens. */
import { expect } from 'chai';
import { FieldErrors } from '@tix/kit';
import {
  MERGE_SETS_STATUS,
  mismatches,
  parseExpectation,
  parseSet,
  TAGS_WITH_CHANGES,
  UNMERGE_ONLY,
} from '../../src/compare-and-set/cas-fields.js';
import {
  decodePositionToken,
  encodePositionToken,
  INVALID_POSITION_TOKEN,
} from '../../src/compare-and-set/position-token.js';
import { describeError, refusal, SUPPORT, ticketRow } from './support.js';

/** The 422 validation errors `read` records (undefined when it records none). */
async function errorsOf(read: (errors: FieldErrors) => unknown) {
  const errors = new FieldErrors();
  read(errors);
  if (errors.isEmpty) return undefined;
  return describeError(await refusal(() => errors.throwIfAny())).validationErrors;
}

describe('compare-and-set fields', () => {
  it('reads an expectation: null and 0 are unassigned, tags a normalised set', () => {
    const errors = new FieldErrors();
    const expected = parseExpectation(
      errors,
      JSON.stringify({ assigned_to: 0, tags: [' B', 'a', 'b'], merged_into_id: null, resolution_type: null }),
    );
    expect(errors.isEmpty).to.equal(true);
    expect(expected).to.deep.equal({
      assigned_to: null,
      tags: ['a', 'b'],
      merged_into_id: null,
      resolution_type: null,
    });
    expect(parseExpectation(new FieldErrors(), '')).to.deep.equal({});
  });

  it('refuses what is not an object, values of the wrong type and unknown names', async () => {
    expect(await errorsOf((errors) => parseExpectation(errors, '[1]'))).to.deep.equal({
      expected_json: ['expected_json must be a JSON object'],
    });
    expect(
      await errorsOf((errors) =>
        parseExpectation(
          errors,
          JSON.stringify({ assigned_to: 'x', tags: 'a', merged_into_id: -1, assignee: 1 }),
        ),
      ),
    ).to.deep.equal({
      'expected.assigned_to': ['must be a user id or null'],
      'expected.tags': ['must be an array of strings'],
      'expected.merged_into_id': ['must be a ticket id or null'],
      'expected.assignee': [
        'Unknown field: must be one of priority, assigned_to, status, resolution_type, tags, merged_into_id',
      ],
    });
  });

  it('reads a set with checked values; refuses tags with tag changes, a merge with a status, clearing a merge', async () => {
    const errors = new FieldErrors();
    const set = parseSet(
      errors,
      JSON.stringify({ priority: 'high', status: 'closed', resolution_type: null, tags_add: [' Billing '] }),
      SUPPORT,
    );
    expect(errors.isEmpty).to.equal(true);
    expect(set).to.deep.equal({
      priority: 'high',
      status: SUPPORT.statuses[3],
      resolutionType: null,
      tagsAdd: ['billing'],
    });
    expect(
      await errorsOf((e) => parseSet(e, JSON.stringify({ tags: ['a'], tags_remove: ['b'] }), SUPPORT)),
    ).to.deep.equal({ tags: [TAGS_WITH_CHANGES] });
    expect(
      await errorsOf((e) => parseSet(e, JSON.stringify({ merged_into_id: 4, status: 'closed' }), SUPPORT)),
    ).to.deep.equal({ merged_into_id: [MERGE_SETS_STATUS] });
    expect(
      await errorsOf((e) => parseSet(e, JSON.stringify({ merged_into_id: null }), SUPPORT)),
    ).to.deep.equal({
      merged_into_id: [UNMERGE_ONLY],
    });
    expect(
      await errorsOf((e) => parseSet(e, JSON.stringify({ resolution_type: 'fixed' }), SUPPORT)),
    ).to.deep.equal({
      resolution_type: ['resolution_type must be one of resolved, wont_fix, duplicate'],
    });
  });

  it('names each field the ticket no longer holds, with what it is and what was expected', () => {
    const row = ticketRow({ priority: 'critical', tags: ['b', 'a'], assignedTo: 4, status: 'closed' });
    expect(
      mismatches(
        { priority: 'high', tags: ['a', 'b'], assigned_to: null, status: 'closed', merged_into_id: 9 },
        row,
      ),
    ).to.deep.equal({
      priority: ['is critical, expected high'],
      assigned_to: ['is 4, expected null'],
      merged_into_id: ['is null, expected 9'],
    });
    expect(mismatches({}, row)).to.deep.equal({});
  });
});

describe('position tokens', () => {
  it('round-trip a position', () => {
    const position = { status: 'in_review', rank: 'a1Xy', previousId: 4, nextId: null };
    const errors = new FieldErrors();
    expect(decodePositionToken(errors, encodePositionToken(position))).to.deep.equal(position);
    expect(errors.isEmpty).to.equal(true);
  });

  it('refuse anything that is not a token this service made', async () => {
    const encode = (body: unknown) => Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
    const good = { v: 1, s: 'open', r: 'a0', p: null, n: 3 };
    const bad = [
      '',
      'not a token!',
      Buffer.from('{not json').toString('base64url'),
      encode([1]),
      encode({ ...good, v: 2 }),
      encode({ ...good, s: '' }),
      encode({ ...good, r: 'a' }),
      encode({ ...good, r: 'a0 ' }),
      encode({ ...good, r: 'a'.repeat(201) }),
      encode({ ...good, p: 0 }),
      encode({ ...good, n: '3' }),
    ];
    for (const token of bad) {
      expect(await errorsOf((errors) => decodePositionToken(errors, token)), token).to.deep.equal({
        position_token: [INVALID_POSITION_TOKEN],
      });
    }
    expect(await errorsOf((errors) => decodePositionToken(errors, encode(good)))).to.equal(undefined);
  });
});
