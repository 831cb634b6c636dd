import { expect } from 'chai';
import {
  ATTACHMENT_LIMITS,
  BULK_STATUSES,
  codePointLength,
  CUSTOM_FIELD_TYPES,
  fileTooLargeMessage,
  fitsCodePoints,
  hasControlCharacters,
  isResolutionType,
  isTicketPriority,
  MAX_INT32,
  MIN_INT32,
  PAGE_LIMITS,
  pageWindow,
  paginationOf,
  quoted,
  TICKET_LIMITS,
  TICKET_PRIORITIES,
  TICKET_SORT_FIELDS,
} from '../src/index.js';

describe("the contract's vocabulary", () => {
  it('counts code points: an emoji or a lone surrogate is one character', () => {
    expect(codePointLength('')).to.equal(0);
    expect(codePointLength('abc')).to.equal(3);
    expect(codePointLength('é🔥x')).to.equal(3);
    expect(codePointLength('a\ud800b')).to.equal(3);
    expect(codePointLength('\udc00\ud800')).to.equal(2);
    expect(codePointLength('🔥'.repeat(200))).to.equal(200);
  });

  it('fitsCodePoints agrees with codePointLength at the limit', () => {
    for (const value of ['', 'x'.repeat(200), 'x'.repeat(201), '🔥'.repeat(200), '🔥'.repeat(201)]) {
      expect(fitsCodePoints(value, TICKET_LIMITS.title), `${value.length}`).to.equal(
        codePointLength(value) <= TICKET_LIMITS.title,
      );
    }
  });

  it("holds the spec's values", () => {
    expect(TICKET_PRIORITIES).to.deep.equal(['low', 'medium', 'high', 'critical']);
    expect(BULK_STATUSES).to.deep.equal(['open', 'work_in_progress', 'waiting', 'closed']);
    expect(TICKET_SORT_FIELDS).to.deep.equal([
      'id',
      'title',
      'status',
      'priority',
      'created_at',
      'updated_at',
      'assigned_to',
    ]);
    expect(TICKET_LIMITS).to.deep.include({ title: 200, description: 5000, bulkIds: 100 });
    expect(PAGE_LIMITS).to.deep.equal({ defaultPerPage: 50, maxPerPage: 100 });
    expect(CUSTOM_FIELD_TYPES).to.have.length(10);
    expect([MIN_INT32, MAX_INT32]).to.deep.equal([-(2 ** 31), 2 ** 31 - 1]);
  });

  it('narrows priorities and resolution types', () => {
    expect(TICKET_PRIORITIES.every(isTicketPriority)).to.equal(true);
    expect(isTicketPriority('urgent')).to.equal(false);
    expect(isResolutionType('wont_fix')).to.equal(true);
    expect(isResolutionType('fixed')).to.equal(false);
  });

  it('words the file size limit as operators write it', () => {
    expect(fileTooLargeMessage(ATTACHMENT_LIMITS.defaultMaxBytes)).to.equal('File is larger than 25 MB');
    expect(fileTooLargeMessage(256 * 1024)).to.equal('File is larger than 256 KB');
    expect(fileTooLargeMessage(1000)).to.equal('File is larger than 1000 bytes');
  });
});

describe('text checks (vocabulary)', () => {
  it('finds control characters; multi-line texts may keep tabs and line breaks', () => {
    expect(hasControlCharacters('plain text, ünïcode ✓', false)).to.be.false;
    for (const bad of ['\u0000', 'a\u0001', '\u001f', '\u007f', 'a\tb', 'a\nb']) {
      expect(hasControlCharacters(bad, false), JSON.stringify(bad)).to.be.true;
    }
    expect(hasControlCharacters('line 1\r\n\tline 2', true)).to.be.false;
    expect(hasControlCharacters('a\u0000b', true)).to.be.true;
    expect(quoted('abc')).to.equal('"abc"');
    expect(quoted('x'.repeat(70))).to.equal(`"${'x'.repeat(64)}…"`);
  });
});

describe('pages of a list: pageWindow and paginationOf (tickets, webhook deliveries)', () => {
  it('defaults to page 1 of 50', () => {
    expect(pageWindow(null)).to.deep.equal({ page: 1, perPage: 50, offset: 0 });
    expect(pageWindow({ page: 0, per_page: 0 })).to.deep.equal({ page: 1, perPage: 50, offset: 0 });
  });

  it('clamps per_page to 1..100 and page to >= 1', () => {
    expect(pageWindow({ page: -3, per_page: 500 })).to.deep.equal({ page: 1, perPage: 100, offset: 0 });
    expect(pageWindow({ page: 3, per_page: -1 })).to.deep.equal({ page: 3, perPage: 1, offset: 2 });
    expect(pageWindow({ page: 3, per_page: 500 })).to.deep.equal({ page: 3, perPage: 100, offset: 200 });
  });

  it('computes offsets of huge pages exactly', () => {
    expect(pageWindow({ page: 2_147_483_647, per_page: 100 }).offset).to.equal(214_748_364_600);
  });

  it('counts total pages (0 when nothing matches)', () => {
    const window = pageWindow({ page: 2, per_page: 10 });
    expect(paginationOf(31, window)).to.deep.equal({ total: 31, page: 2, per_page: 10, total_pages: 4 });
    expect(paginationOf(30, window).total_pages).to.equal(3);
    expect(paginationOf(0, window).total_pages).to.equal(0);
    expect(paginationOf(101, pageWindow({ page: 2 }))).to.deep.equal({
      total: 101,
      page: 2,
      per_page: 50,
      total_pages: 3,
    });
  });
});
