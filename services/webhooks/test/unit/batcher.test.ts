import { expect } from 'chai';
import { createBatcher } from '../../src/shared/batcher.js';

describe('batcher', () => {
  it('answers calls made in the same turn with one load of the distinct keys', async () => {
    const loads: number[][] = [];
    const load = createBatcher((keys: number[]) => {
      loads.push(keys);
      return Promise.resolve(new Map(keys.filter((key) => key % 2 === 0).map((key) => [key, `v${key}`])));
    }, 'missing');
    const answers = await Promise.all([load(2), load(3), load(2), load(4)]);
    expect(answers).to.deep.equal(['v2', 'missing', 'v2', 'v4']);
    expect(loads).to.deep.equal([[2, 3, 4]]);
    expect(await load(6)).to.equal('v6');
    expect(loads).to.have.length(2);
  });

  it('rejects every waiter of a failed load', async () => {
    const load = createBatcher<number, boolean>(() => Promise.reject(new Error('down')), false);
    const results = await Promise.allSettled([load(1), load(2)]);
    expect(results.map((result) => result.status)).to.deep.equal(['rejected', 'rejected']);
  });
});
