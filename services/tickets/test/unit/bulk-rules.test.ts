import { expect } from 'chai';
import { FieldErrors } from '@tix/kit';
import {
  bulkOutcome,
  checkBulkStatus,
  checkTicketIds,
  selectBulkTargets,
} from '../../src/bulk/bulk-rules.js';
import { describeError, PLATFORM, refusal, SUPPORT, ticketRow } from './support.js';

async function errorsOf(check: (errors: FieldErrors) => unknown) {
  const errors = new FieldErrors();
  check(errors);
  if (errors.isEmpty) return undefined;
  return describeError(await refusal(() => errors.throwIfAny())).validationErrors;
}

describe('bulk rules', () => {
  it('collapses duplicate ids and accepts 1 to 100 distinct ids', () => {
    const errors = new FieldErrors();
    expect(checkTicketIds(errors, [3, 1, 3, 2, 1])).to.deep.equal([3, 1, 2]);
    const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(checkTicketIds(errors, [...hundred, ...hundred])).to.have.length(100);
    expect(errors.isEmpty).to.be.true;
  });

  it('refuses no ids and more than 100 distinct ids', async () => {
    const message = { ticket_ids: ['ticket_ids must hold 1 to 100 ticket ids'] };
    expect(await errorsOf((errors) => checkTicketIds(errors, []))).to.deep.equal(message);
    const many = Array.from({ length: 101 }, (_, index) => index + 1);
    expect(await errorsOf((errors) => checkTicketIds(errors, many))).to.deep.equal(message);
  });

  it('allows only the four default statuses', async () => {
    for (const status of ['open', 'work_in_progress', 'waiting', 'closed'])
      expect(await errorsOf((errors) => checkBulkStatus(errors, status))).to.be.undefined;
    expect(await errorsOf((errors) => checkBulkStatus(errors, 'triage'))).to.deep.equal({
      status: ['status must be one of open, work_in_progress, waiting, closed'],
    });
  });

  it('fails ids that are not live tickets of the project, keeping request order', () => {
    const found = [ticketRow({ id: 4 }), ticketRow({ id: 2 })];
    expect(selectBulkTargets([2, 9, 4, 7], found, SUPPORT, 'closed')).to.deep.equal({
      eligible: [found[1], found[0]],
      failed: [9, 7],
    });
  });

  it('fails every ticket when its project lacks the status', () => {
    const found = [ticketRow({ id: 4, projectId: PLATFORM.id, status: 'triage' })];
    expect(selectBulkTargets([4], found, PLATFORM, 'open')).to.deep.equal({ eligible: [], failed: [4] });
    expect(selectBulkTargets([4], found, PLATFORM, undefined).eligible).to.have.length(1);
  });

  it('reports updated tickets in request order and every other id as failed', () => {
    const updated = [ticketRow({ id: 4 }), ticketRow({ id: 2 })];
    expect(bulkOutcome([2, 9, 4], updated)).to.deep.equal({
      successCount: 2,
      failedIds: [9],
      tickets: [updated[1], updated[0]],
    });
  });
});
