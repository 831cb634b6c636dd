import { expect } from 'chai';
import { checkFilter, checkSearchText, containsPattern, parseSort } from '../../src/tickets/list-rules.js';
import { describeError, refusal, SUPPORT } from './support.js';

describe('list rules', () => {
  describe('parseSort', () => {
    it('defaults to -created_at', () => {
      expect(parseSort('')).to.deep.equal({ field: 'created_at', descending: true });
    });

    it('reads - as descending; +, a leading space (a decoded +) and a bare field as ascending', () => {
      expect(parseSort('-priority')).to.deep.equal({ field: 'priority', descending: true });
      expect(parseSort('+title')).to.deep.equal({ field: 'title', descending: false });
      expect(parseSort(' updated_at')).to.deep.equal({ field: 'updated_at', descending: false });
      expect(parseSort('assigned_to')).to.deep.equal({ field: 'assigned_to', descending: false });
    });

    it('accepts every allowed field', () => {
      for (const field of ['id', 'title', 'status', 'priority', 'created_at', 'updated_at', 'assigned_to']) {
        expect(parseSort(`-${field}`).field).to.equal(field);
      }
    });

    it('refuses unknown fields, double prefixes and other columns with 400 on sort', async () => {
      for (const sort of ['-description', '--id', '+-id', 'created', 'id ', '-', 'ID']) {
        expect(describeError(await refusal(() => parseSort(sort))), sort).to.deep.equal({
          kind: 'bad_request',
          message: 'Invalid sort',
          validationErrors: {
            sort: [
              'sort must be one of id, title, status, priority, created_at, updated_at, assigned_to, with an optional + or - prefix',
            ],
          },
        });
      }
    });
  });

  describe('checkFilter', () => {
    it('keeps known status, priority, assignee and a normalised tag', () => {
      expect(
        checkFilter(SUPPORT, { status: 'waiting', priority: 'high', assignee: 4, tag: '  Billing ' }),
      ).to.deep.equal({ projectId: 7, status: 'waiting', priority: 'high', assignee: 4, tag: 'billing' });
      expect(checkFilter(SUPPORT, {})).to.deep.equal({ projectId: 7 });
    });

    it('refuses a status of another workflow, an unknown priority and a bad tag with 400', async () => {
      expect(describeError(await refusal(() => checkFilter(SUPPORT, { status: 'triage' })))).to.deep.equal({
        kind: 'bad_request',
        message: 'Invalid status',
        validationErrors: {
          status: ["status must be one of the project's statuses: open, work_in_progress, waiting, closed"],
        },
      });
      expect(
        (await refusal(() => checkFilter(SUPPORT, { priority: 'urgent' }))).validationErrors,
      ).to.deep.equal({ priority: ['priority must be one of low, medium, high, critical'] });
      for (const tag of ['', '   ', 'x'.repeat(51), 'a\u0000b', '\ud800']) {
        expect((await refusal(() => checkFilter(SUPPORT, { tag }))).message).to.equal('Invalid tag');
      }
    });
  });

  describe('search text', () => {
    it('accepts 1 to 200 characters, counting code points', () => {
      expect(checkSearchText('printer')).to.equal('printer');
      expect(checkSearchText('😀'.repeat(200))).to.have.length(400);
    });

    it('refuses empty, too long, NUL and lone surrogates with 400 on q', async () => {
      for (const q of ['', 'x'.repeat(201), 'a\u0000', '\udc00']) {
        expect(describeError(await refusal(() => checkSearchText(q)))).to.deep.equal({
          kind: 'bad_request',
          message: 'Invalid q',
          validationErrors: { q: ['q must be 1 to 200 characters of text'] },
        });
      }
    });

    it('escapes LIKE wildcards and the escape character', () => {
      expect(containsPattern('50%_off\\now')).to.equal('%50\\%\\_off\\\\now%');
      expect(containsPattern('plain')).to.equal('%plain%');
    });
  });
});
