import { expect } from 'chai';
import { startPeriodicJob } from '../../src/index.js';
import { testLogger } from '../../src/testing/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('startPeriodicJob', () => {
  it('runs every interval, one pass at a time; runOnce joins the pass under way', async () => {
    let passes = 0;
    let release: () => void = () => undefined;
    const job = startPeriodicJob({
      name: 'test job',
      intervalMs: 20,
      logger: testLogger(),
      run: async () => {
        passes += 1;
        await new Promise<void>((resolve) => (release = resolve));
        return passes;
      },
    });
    await sleep(70);
    expect(passes).to.equal(1); // the pass under way holds off the next rounds
    const joined = job.runOnce();
    release();
    expect(await joined).to.equal(1);
    await job.stop();
  });

  it('runs the first pass after firstRunAfterMs, survives a failed pass, and stop() waits for the pass under way', async () => {
    const outcomes: string[] = [];
    const job = startPeriodicJob({
      name: 'test job',
      intervalMs: 1_000,
      firstRunAfterMs: 10,
      logger: testLogger(),
      run: async () => {
        outcomes.push('started');
        await sleep(30);
        if (outcomes.length === 1) throw new Error('store down');
        outcomes.push('finished');
      },
    });
    await sleep(20);
    expect(outcomes).to.deep.equal(['started']);
    await sleep(30); // the failed pass was logged, not thrown
    await job.runOnce();
    expect(outcomes).to.deep.equal(['started', 'started', 'finished']);
    const stopping = job.runOnce();
    await job.stop();
    expect(outcomes.at(-1)).to.equal('finished');
    await stopping;
  });
});
