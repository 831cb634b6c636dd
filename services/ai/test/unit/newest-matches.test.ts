import { expect } from 'chai';
import { seededRandom } from '@tix/support-corpus';
import { newestMatches, type IdWindow } from '../../src/retrieval/newest-matches.js';

/** Ids 1..newestId of which those `matches` keeps match, read as the SQL of a window would. */
function table(newestId: number, matches: (id: number) => boolean) {
  const matching = Array.from({ length: newestId }, (_, i) => newestId - i).filter(matches);
  const windows: IdWindow[] = [];
  const readWindow = (window: IdWindow) => {
    windows.push(window);
    const rows = matching.filter((id) => id > window.above && id <= window.upTo).slice(0, window.limit);
    return Promise.resolve(rows);
  };
  return { matching, windows, readWindow };
}

describe('the newest matches, read in windows of ids', () => {
  it('returns exactly what one unbounded query would, whatever the density, with or without a bound', async () => {
    const random = seededRandom(42);
    for (let run = 0; run < 200; run++) {
      const newestId = random.int(1, 50_000);
      const density = random.pick([0, 0.0001, 0.001, 0.01, 0.1, 0.5, 1]);
      // Some matches cluster among the oldest ids, as a word that went out of use.
      const oldOnly = random.chance(0.3);
      const { matching, windows, readWindow } = table(
        newestId,
        (id) => random.chance(density) && (!oldOnly || id < newestId / 4),
      );
      const limit = random.int(1, 2_000);
      const bound = random.chance(0.5) ? Infinity : matching.length + random.int(0, 5_000);
      const rows = await newestMatches(newestId, limit, readWindow, bound);
      const shown = `run ${run}: ${newestId} ids, ${matching.length} match, limit ${limit}, bound ${bound}`;
      expect(rows, shown).to.deep.equal(matching.slice(0, limit));
      // The windows step down without gaps or overlaps, and never read past the oldest id.
      windows.forEach((window, i) => {
        expect(window.upTo, shown).to.equal(i === 0 ? newestId : windows[i - 1]!.above);
        expect(window.above, shown).to.be.at.least(0).and.below(window.upTo);
      });
      expect(windows.length, shown).to.be.at.most(12);
    }
  });

  it('reads a common word in one window that holds little more than the limit', async () => {
    const { windows, readWindow } = table(100_000, (id) => id % 8 === 0);
    const rows = await newestMatches(100_000, 1_000, readWindow);
    expect(rows).to.have.length(1_000);
    expect(windows).to.deep.equal([{ above: 90_000, upTo: 100_000, limit: 1_000 }]);
  });

  it('reads a rare word in two windows, the second reaching the oldest id', async () => {
    const { windows, readWindow } = table(100_000, (id) => id % 5_000 === 0);
    expect(await newestMatches(100_000, 1_000, readWindow)).to.have.length(20);
    expect(windows.map((window) => window.above)).to.deep.equal([90_000, 0]);
  });

  it('reads everything in one query when the bound is under 1.5 times the limit', async () => {
    const { windows, readWindow } = table(100_000, (id) => id % 60 === 0);
    expect(await newestMatches(100_000, 1_000, readWindow, 1_400)).to.have.length(1_000);
    expect(windows).to.have.length(1);
    expect(windows[0]!.above).to.equal(0);
  });

  it('asks nothing of an empty table', async () => {
    const { windows, readWindow } = table(0, () => true);
    expect(await newestMatches(0, 10, readWindow)).to.deep.equal([]);
    expect(windows).to.deep.equal([]);
  });
});
