import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { isTransientCorpusError, UnreadableEvent } from '../../src/corpus/apply-event.js';

describe('which corpus failures the consumer retries', () => {
  it('retries what may pass: the database or lookup unreachable or slow', () => {
    expect(
      isTransientCorpusError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).to.equal(true);
    expect(isTransientCorpusError(Object.assign(new Error('deadlock'), { code: '40P01' }))).to.equal(true);
    expect(isTransientCorpusError(AppError.unavailable('The lookup service is unavailable'))).to.equal(true);
  });

  it('dead-letters what never will: an unreadable event, an unknown project, data the database refuses', () => {
    expect(isTransientCorpusError(new UnreadableEvent('version is not an integer'))).to.equal(false);
    expect(isTransientCorpusError(AppError.notFound('Project not found'))).to.equal(false);
    expect(isTransientCorpusError(Object.assign(new Error('value too long'), { code: '22001' }))).to.equal(
      false,
    );
  });
});
