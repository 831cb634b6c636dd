import { expect } from 'chai';
import { pollLog } from '../../src/log/poll.js';

/** A log numbered 1..10 in which only even numbers match the filter. */
const read = (after: number, head: number, limit: number) => {
  const rows: number[] = [];
  for (let n = after + 1; n <= head && rows.length < limit; n += 1) if (n % 2 === 0) rows.push(n);
  return Promise.resolve(rows);
};
const poll = (after: number | undefined, limit: number, floor = 0) =>
  pollLog({ position: { head: 10, floor }, after, limit, read, numberOf: (n) => n });

describe('polling a numbered log', () => {
  it('starts from now without a cursor', async () => {
    expect(await poll(undefined, 5)).to.deep.equal({ rows: [], cursor: 10, hasMore: false, expired: false });
  });

  it('continues after the last row when more remain, else from the head (past filtered rows)', async () => {
    expect(await poll(0, 2)).to.deep.equal({ rows: [2, 4], cursor: 4, hasMore: true, expired: false });
    expect(await poll(4, 5)).to.deep.equal({ rows: [6, 8, 10], cursor: 10, hasMore: false, expired: false });
    expect(await poll(8, 5)).to.deep.equal({ rows: [10], cursor: 10, hasMore: false, expired: false });
  });

  it('answers an unchanged cursor without reading', async () => {
    let reads = 0;
    const result = await pollLog({
      position: { head: 10, floor: 0 },
      after: 10,
      limit: 5,
      read: () => {
        reads += 1;
        return Promise.resolve([]);
      },
      numberOf: (n: number) => n,
    });
    expect(result).to.deep.equal({ rows: [], cursor: 10, hasMore: false, expired: false });
    expect(reads).to.equal(0);
  });

  it('reports a cursor below the retention floor as expired, and one at it as fine', async () => {
    expect((await poll(3, 5, 4)).expired).to.equal(true);
    expect((await poll(4, 5, 4)).expired).to.equal(false);
  });
});
