/**
 * The local launcher as a supervisor: a process that dies on its own (here: SIGKILL from outside, as
 * the OOM killer would) is recorded as a crash, restarted after its backoff with TIX_RESTART_COUNT,
 * and the fleet serves again without anyone touching it.
 */
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import { fleet } from '../support/fleet.js';
import { request } from '../support/http.js';

describe('a crashed process under pnpm start', function () {
  this.timeout(60_000);

  it('is restarted with backoff, counted, and serves again', async () => {
    const pid = fleet().pid('comments');
    expect(pid).to.be.a('number');
    const crashesBefore = fleet().crashes.length;
    process.kill(pid!, 'SIGKILL');

    const crash = await eventually(() => fleet().crashes[crashesBefore], 10_000, 50);
    expect(crash).to.include({ name: 'comments', code: null, signal: 'SIGKILL' });
    const restartedPid = await eventually(
      () => {
        const current = fleet().pid('comments');
        return current !== undefined && current !== pid ? current : undefined;
      },
      10_000,
      50,
    );
    expect(restartedPid).to.not.equal(pid);
    // The first restart waits about a second, not less (no hot crash loop).
    const ready = await eventually(
      async () => ((await request('/readyz')).status === 200 ? Date.now() : undefined),
      30_000,
      100,
    );
    expect(ready - crash.at).to.be.at.least(900);
    const metricsUrl = fleet().metricsUrls.comments;
    if (metricsUrl) {
      const metrics = await eventually(
        async () => {
          const response = await fetch(metricsUrl).catch(() => undefined);
          return response?.ok ? response.text() : undefined;
        },
        10_000,
        100,
      );
      expect(metrics).to.match(/^tix_process_restarts\{service="comments"\} 1$/m);
    }
    expect(fleet().crashes.slice(crashesBefore)).to.have.length(1);
  });
});
