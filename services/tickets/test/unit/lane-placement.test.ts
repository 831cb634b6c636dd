import { expect } from 'chai';
import { generateKeyBetween } from 'fractional-indexing';
import {
  adjacencyProblem,
  anchorProblem,
  appendRank,
  appendRanks,
  rankBetween,
  randomSuffix,
  type LaneAnchor,
} from '../../src/lanes/lane-placement.js';

/** Byte-wise comparison, as the COLLATE "C" column compares. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

describe('lane placement', () => {
  it('puts the first ticket of an empty lane somewhere and each next one after the tail', () => {
    const first = appendRank(null);
    const second = appendRank(first);
    expect(byteOrder(first, second)).to.equal(-1);
  });

  it('queues several tickets at the end of a lane in ascending order', () => {
    const tail = appendRank(null);
    const keys = appendRanks(tail, 5);
    expect(keys).to.have.length(5);
    expect([tail, ...keys]).to.deep.equal([tail, ...keys].sort(byteOrder));
    expect(new Set(keys).size).to.equal(5);
  });

  it('gives two appends after the same tail distinct keys, both after it, both valid keys', () => {
    const tail = appendRank(null);
    const sequence = [0.1, 0.2, 0.3, 0.9, 0.8, 0.7];
    const random = () => sequence.shift()!;
    const [left, right] = [appendRank(tail, random), appendRank(tail, random)];
    expect(left).to.not.equal(right);
    for (const key of [left, right]) {
      expect(byteOrder(tail, key)).to.equal(-1);
      // Valid fractional-indexing keys: usable as bounds of later placements.
      expect(() => generateKeyBetween(key, null)).to.not.throw();
      expect(() => rankBetween(tail, key)).to.not.throw();
    }
  });

  it('random suffixes use base-62 digits and never end in the zero digit', () => {
    expect(randomSuffix(3, () => 0)).to.equal('001');
    expect(randomSuffix(3, () => 0.9999)).to.equal('zzz');
    for (let index = 0; index < 200; index++) expect(randomSuffix()).to.match(/^[0-9A-Za-z]{2}[1-9A-Za-z]$/);
  });

  it('finds a key strictly between two neighbours, and before the first', () => {
    const a = appendRank(null);
    const b = appendRank(a);
    const middle = rankBetween(a, b);
    expect(byteOrder(a, middle)).to.equal(-1);
    expect(byteOrder(middle, b)).to.equal(-1);
    const head = rankBetween(null, a);
    expect(byteOrder(head, a)).to.equal(-1);
  });

  it('keeps order when tickets are placed again and again at the same spot (one row per move)', () => {
    // A lane of three; then 200 tickets each placed directly after the first one.
    const lane = appendRanks(null, 3);
    let lower = lane[0]!;
    const upper = lane[1]!;
    for (let index = 0; index < 200; index++) {
      const key = rankBetween(lower, upper);
      expect(byteOrder(lower, key)).to.equal(-1);
      expect(byteOrder(key, upper)).to.equal(-1);
      lane.push(key);
      lower = key;
    }
    expect(new Set(lane).size).to.equal(lane.length);
  });

  describe('anchors', () => {
    const anchor = (overrides: Partial<LaneAnchor> = {}): LaneAnchor => ({
      id: 5,
      status: 'open',
      laneRank: 'a0',
      deleted: false,
      ...overrides,
    });

    it('accepts a live ticket of the target lane', () => {
      expect(anchorProblem(5, anchor(), 'open', 9)).to.be.undefined;
    });

    it('refuses the moving ticket itself, unknown, deleted and other-lane tickets', () => {
      expect(anchorProblem(9, anchor({ id: 9 }), 'open', 9)).to.equal(
        'A ticket cannot be placed relative to itself',
      );
      expect(anchorProblem(5, undefined, 'open', 9)).to.equal('Ticket 5 is not in the open lane');
      expect(anchorProblem(5, anchor({ deleted: true }), 'open', 9)).to.equal(
        'Ticket 5 is not in the open lane',
      );
      expect(anchorProblem(5, anchor({ status: 'closed' }), 'open', 9)).to.equal(
        'Ticket 5 is not in the open lane',
      );
    });

    it('requires before_id to directly follow after_id', () => {
      expect(adjacencyProblem(1, 2, { id: 2 })).to.be.undefined;
      expect(adjacencyProblem(1, 2, { id: 3 })).to.equal(
        'Ticket 2 does not directly follow ticket 1 in the lane',
      );
      expect(adjacencyProblem(1, 2, null)).to.equal('Ticket 2 does not directly follow ticket 1 in the lane');
    });
  });
});
