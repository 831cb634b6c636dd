import { expect } from 'chai';
import {
  CURSOR_OF_ANOTHER_QUERY,
  decodeListCursor,
  encodeListCursor,
  INVALID_CURSOR,
  MAX_CURSOR_LENGTH,
  queryFingerprint,
  type ListPosition,
} from '../../src/tickets/list-cursor.js';
import { parseSort, type TicketFilter } from '../../src/tickets/list-rules.js';
import { describeError, refusal } from './support.js';

describe('list cursor', () => {
  const filter: TicketFilter = {
    projectId: 7,
    status: 'open',
    createdSince: new Date('2026-01-01T00:00:00Z'),
  };
  const sort = parseSort('-created_at');
  const cursorOf = (position: ListPosition, f = filter, s = sort) =>
    encodeListCursor(queryFingerprint(f, s), position);
  const refused = async (text: string, f = filter, s = sort) =>
    describeError(await refusal(() => decodeListCursor(text, f, s)));
  const invalid = (message = INVALID_CURSOR) => ({
    kind: 'bad_request',
    message: 'Invalid cursor',
    validationErrors: { cursor: [message] },
  });

  it('decodes what it encodes, for the key of every sort', () => {
    const cases: [string, ListPosition][] = [
      ['id', { key: null, id: 1 }],
      ['-title', { key: 'printer on fire: ünïcode 🔥', id: 2147483647 }],
      ['status', { key: 'work_in_progress', id: 5 }],
      ['-priority', { key: 'critical', id: 6 }],
      ['created_at', { key: '2026-05-02T10:11:00.123Z', id: 9 }],
      ['-updated_at', { key: '1999-12-31T23:59:59.999Z', id: 10 }],
      ['assigned_to', { key: 42, id: 11 }],
      ['-assigned_to', { key: null, id: 12 }],
    ];
    for (const [sortText, position] of cases) {
      const s = parseSort(sortText);
      const text = cursorOf(position, filter, s);
      expect(text, sortText).to.match(/^[A-Za-z0-9_-]+$/);
      expect(decodeListCursor(text, filter, s), sortText).to.deep.equal(position);
    }
  });

  it('fingerprints the project, sort and every filter, and nothing else', () => {
    const base = queryFingerprint(filter, sort);
    expect(queryFingerprint({ ...filter }, parseSort('-created_at'))).to.equal(base);
    for (const other of [
      { ...filter, projectId: 8 },
      { ...filter, status: 'closed' },
      { ...filter, priority: 'high' as const },
      { ...filter, assignee: 3 },
      { ...filter, unassigned: true as const },
      { ...filter, tag: 'vip' },
      { ...filter, createdSince: new Date('2026-01-02T00:00:00Z') },
      { ...filter, updatedSince: new Date('2026-01-01T00:00:00Z') },
      { ...filter, deletedOnly: true as const },
    ]) {
      expect(queryFingerprint(other, sort), JSON.stringify(other)).to.not.equal(base);
    }
    expect(queryFingerprint(filter, parseSort('+created_at'))).to.not.equal(base);
    expect(queryFingerprint(filter, parseSort('-updated_at'))).to.not.equal(base);
  });

  it('refuses a cursor of another query with its own message', async () => {
    const text = cursorOf({ key: '2026-05-02T10:11:00.123Z', id: 9 });
    expect(await refused(text, { ...filter, status: 'closed' })).to.deep.equal(
      invalid(CURSOR_OF_ANOTHER_QUERY),
    );
    expect(await refused(text, filter, parseSort('created_at'))).to.deep.equal(
      invalid(CURSOR_OF_ANOTHER_QUERY),
    );
  });

  it('refuses anything but the canonical text of a position of this sort', async () => {
    const fingerprint = queryFingerprint(filter, sort);
    const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const good = cursorOf({ key: '2026-05-02T10:11:00.123Z', id: 9 });
    for (const text of [
      '',
      'x',
      `${good}=`,
      `${good.slice(0, 4)}*${good.slice(4)}`,
      Buffer.from(`{ "f":"${fingerprint}","k":"2026-05-02T10:11:00.123Z","i":9}`).toString('base64url'),
      json({ k: '2026-05-02T10:11:00.123Z', i: 9, f: fingerprint }),
      json({ f: fingerprint, k: '2026-05-02T10:11:00.123Z', i: 0 }),
      json({ f: fingerprint, k: '2026-05-02T10:11:00.123Z', i: 2147483648 }),
      json({ f: fingerprint, k: '2026-05-02T10:11:00.123Z', i: 1.5 }),
      json({ f: fingerprint, k: '2026-05-02T10:11:00.123Z', i: '9' }),
      json({ f: fingerprint, k: '2026-05-02T10:11:00.123Z', i: 9, x: 1 }),
      json({ f: fingerprint, k: ['a'], i: 9 }),
      json({ f: fingerprint, k: '2026-05-02', i: 9 }),
      json({ f: fingerprint, k: '2026-13-45T10:11:00.123Z', i: 9 }),
      json({ f: fingerprint, k: 5, i: 9 }),
      json({ f: fingerprint, k: null, i: 9 }),
      json([fingerprint, null, 9]),
      'A'.repeat(MAX_CURSOR_LENGTH + 1),
    ]) {
      expect(await refused(text), text).to.deep.equal(invalid());
    }
    // Keys of other sorts: a priority must be one, an assignee a user id.
    const priority = parseSort('priority');
    const assignee = parseSort('assigned_to');
    const keyed = (key: unknown, s = priority) =>
      Buffer.from(JSON.stringify({ f: queryFingerprint(filter, s), k: key, i: 9 })).toString('base64url');
    expect(await refused(keyed('urgent'), filter, priority)).to.deep.equal(invalid());
    expect(await refused(keyed(0, assignee), filter, assignee)).to.deep.equal(invalid());
    expect(await refused(keyed('7', assignee), filter, assignee)).to.deep.equal(invalid());
  });
});
