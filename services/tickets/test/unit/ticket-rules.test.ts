import { expect } from 'chai';
import { FieldErrors } from '@tix/kit';
import {
  checkDescription,
  checkPriority,
  checkStatus,
  checkTitle,
  normaliseTags,
} from '../../src/tickets/ticket-rules.js';
import { refusal, SUPPORT } from './support.js';

async function run<T>(check: (errors: FieldErrors) => T): Promise<{ value: T; errors?: unknown }> {
  const errors = new FieldErrors();
  const value = check(errors);
  if (errors.isEmpty) return { value };
  return { value, errors: (await refusal(() => errors.throwIfAny())).validationErrors };
}

describe('ticket field rules', () => {
  it('title: trimmed, 1 to 200 code points', async () => {
    expect(await run((e) => checkTitle(e, '  Printer  '))).to.deep.equal({ value: 'Printer' });
    expect((await run((e) => checkTitle(e, '😀'.repeat(200)))).errors).to.be.undefined;
    expect((await run((e) => checkTitle(e, 'x'.repeat(201)))).errors).to.deep.equal({
      title: ['Title must be at most 200 characters'],
    });
    for (const empty of ['', '   ', '\t\n'])
      expect((await run((e) => checkTitle(e, empty))).errors).to.deep.equal({ title: ['Title is required'] });
  });

  it('title: no control characters or invalid Unicode', async () => {
    expect((await run((e) => checkTitle(e, 'a\u0000b'))).errors).to.deep.equal({
      title: ['Title must not contain control characters'],
    });
    expect((await run((e) => checkTitle(e, 'a\nb'))).errors).to.deep.equal({
      title: ['Title must not contain control characters'],
    });
    expect((await run((e) => checkTitle(e, 'a\ud800'))).errors).to.deep.equal({
      title: ['Title must be valid Unicode text'],
    });
  });

  it('description: kept as written, at most 5000 code points, line breaks allowed', async () => {
    expect(await run((e) => checkDescription(e, ' # Steps\n\t1. x '))).to.deep.equal({
      value: ' # Steps\n\t1. x ',
    });
    expect((await run((e) => checkDescription(e, 'é'.repeat(5000)))).errors).to.be.undefined;
    expect((await run((e) => checkDescription(e, 'x'.repeat(5001)))).errors).to.deep.equal({
      description: ['Description must be at most 5000 characters'],
    });
    expect((await run((e) => checkDescription(e, 'x\u0000'))).errors).to.deep.equal({
      description: ['Description must not contain control characters'],
    });
  });

  it('priority: one of the four', async () => {
    expect(await run((e) => checkPriority(e, 'critical'))).to.deep.equal({ value: 'critical' });
    expect((await run((e) => checkPriority(e, 'Critical'))).errors).to.deep.equal({
      priority: ['Priority must be one of low, medium, high, critical'],
    });
  });

  it('tags: trimmed, lower-cased, duplicates collapsed, first-seen order', async () => {
    expect(await run((e) => normaliseTags(e, [' Billing', 'vip', 'BILLING ', 'ünïcode']))).to.deep.equal({
      value: ['billing', 'vip', 'ünïcode'],
    });
  });

  it('tags: each 1 to 50 characters of one-line text, at most 20', async () => {
    expect((await run((e) => normaliseTags(e, ['ok', '  ', 'x'.repeat(51)]))).errors).to.deep.equal({
      tags: ['Each tag must be 1 to 50 characters'],
    });
    expect((await run((e) => normaliseTags(e, ['a\u0000']))).errors).to.deep.equal({
      tags: ['Tags must not contain control characters'],
    });
    const many = Array.from({ length: 21 }, (_, index) => `t${index}`);
    expect((await run((e) => normaliseTags(e, many))).errors).to.deep.equal({
      tags: ['Tags must have at most 20 items'],
    });
    expect((await run((e) => normaliseTags(e, [...many.slice(0, 20), 'T0']))).errors).to.be.undefined;
  });

  it('status: a slug of the project', async () => {
    expect((await run((e) => checkStatus(e, SUPPORT, 'waiting'))).value).to.deep.equal({
      slug: 'waiting',
      label: 'Waiting',
      isClosed: false,
    });
    expect((await run((e) => checkStatus(e, SUPPORT, 'done'))).errors).to.deep.equal({
      status: ["Status must be one of the project's statuses: open, work_in_progress, waiting, closed"],
    });
  });
});
