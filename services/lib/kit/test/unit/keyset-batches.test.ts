import { expect } from 'chai';
import { keysetBatches } from '../../src/db/pool.js';

describe('keysetBatches', () => {
  /** Rows with ids 1..count read the way the callers' SQL does: id > after, in order, limited. */
  function table(count: number) {
    const reads: [number, number][] = [];
    const readAfter = (afterId: number, limit: number) => {
      reads.push([afterId, limit]);
      const rows = [];
      for (let id = afterId + 1; id <= count && rows.length < limit; id += 1) rows.push({ id });
      return Promise.resolve(rows);
    };
    return { reads, readAfter };
  }

  async function collect(count: number, batchSize: number) {
    const { reads, readAfter } = table(count);
    const batches: number[][] = [];
    for await (const rows of keysetBatches(readAfter, batchSize)) batches.push(rows.map((row) => row.id));
    return { batches, reads };
  }

  it('walks every row once, in order, starting after the last id of each batch', async () => {
    const { batches, reads } = await collect(7, 3);
    expect(batches).to.deep.equal([[1, 2, 3], [4, 5, 6], [7]]);
    expect(reads).to.deep.equal([
      [0, 3],
      [3, 3],
      [6, 3],
    ]);
  });

  it('stops after a full last batch with one empty read, and yields nothing for no rows', async () => {
    const full = await collect(6, 3);
    expect(full.batches).to.deep.equal([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(full.reads).to.have.length(3);
    expect((await collect(0, 3)).batches).to.deep.equal([]);
  });
});
