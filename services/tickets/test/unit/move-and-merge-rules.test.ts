import { expect } from 'chai';
import { FieldErrors } from '@tix/kit';
import { laneLimitOf } from '../../src/lanes/board.js';
import { checkResolutionType, resolutionAfterMove } from '../../src/lanes/move-ticket.js';
import { checkMerge, checkMergeStatus, mergedState } from '../../src/merges/merge-rules.js';
import { PLATFORM, refusal, SUPPORT, ticketRow } from './support.js';

async function errorsOf(check: (errors: FieldErrors) => unknown): Promise<unknown> {
  const errors = new FieldErrors();
  check(errors);
  if (errors.isEmpty) return undefined;
  return (await refusal(() => errors.throwIfAny())).validationErrors;
}

const closed = SUPPORT.statuses[3]!;
const open = SUPPORT.statuses[0]!;

describe('move rules: resolution_type', () => {
  it('is accepted for a closed target only, and must be a known value', async () => {
    expect(await errorsOf((e) => checkResolutionType(e, 'wont_fix', closed))).to.be.undefined;
    expect(await errorsOf((e) => checkResolutionType(e, undefined, open))).to.be.undefined;
    expect(await errorsOf((e) => checkResolutionType(e, 'resolved', open))).to.deep.equal({
      resolution_type: ['resolution_type is only allowed when moving to a closed status'],
    });
    expect(await errorsOf((e) => checkResolutionType(e, 'fixed', closed))).to.deep.equal({
      resolution_type: ['resolution_type must be one of resolved, wont_fix, duplicate'],
    });
  });

  it('is cleared by a move to an open status, kept or replaced within closed ones', () => {
    expect(resolutionAfterMove(open, undefined, 'resolved')).to.equal(null);
    expect(resolutionAfterMove(closed, undefined, 'resolved')).to.equal('resolved');
    expect(resolutionAfterMove(closed, 'wont_fix', 'resolved')).to.equal('wont_fix');
    expect(resolutionAfterMove(closed, undefined, null)).to.equal(null);
  });
});

describe('board: lane limit', () => {
  it('defaults to 50 and stays within 1..500', () => {
    expect(laneLimitOf(undefined)).to.equal(50);
    expect(laneLimitOf(0)).to.equal(50);
    expect(laneLimitOf(7)).to.equal(7);
    expect(laneLimitOf(-4)).to.equal(1);
    expect(laneLimitOf(10_000)).to.equal(500);
  });
});

describe('merge rules', () => {
  const source = ticketRow({ id: 1 });
  const target = ticketRow({ id: 2 });

  it('accepts a live, unmerged target of the project', async () => {
    expect(await errorsOf((e) => checkMerge(e, source, 2, target))).to.be.undefined;
  });

  it('refuses itself, a missing target, a merged target and a merged source', async () => {
    expect(await errorsOf((e) => checkMerge(e, source, 1, null))).to.deep.equal({
      target_id: ['A ticket cannot be merged into itself'],
    });
    expect(await errorsOf((e) => checkMerge(e, source, 9, null))).to.deep.equal({
      target_id: ['Ticket 9 not found in this project'],
    });
    expect(await errorsOf((e) => checkMerge(e, source, 2, { ...target, mergedIntoId: 5 }))).to.deep.equal({
      target_id: ['Ticket 2 is already merged into ticket 5'],
    });
    expect(await errorsOf((e) => checkMerge(e, { ...source, mergedIntoId: 3 }, 2, target))).to.deep.equal({
      id: ['Ticket 1 is already merged into ticket 3'],
    });
  });

  it('closes the source in the first closed status as a duplicate of the target', async () => {
    const errors = new FieldErrors();
    const status = checkMergeStatus(errors, PLATFORM)!;
    expect(status.slug).to.equal('done');
    expect(mergedState(ticketRow({ status: 'triage', assignedTo: 4 }), 2, status)).to.deep.include({
      status: 'done',
      mergedIntoId: 2,
      resolutionType: 'duplicate',
      assignedTo: 4,
    });
    expect(
      await errorsOf((e) => checkMergeStatus(e, { ...PLATFORM, statuses: [PLATFORM.statuses[0]!] })),
    ).to.deep.equal({ status: ['The project has no closed status to put a merged ticket in'] });
  });
});
