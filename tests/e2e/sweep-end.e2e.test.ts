/**
 * The sweep runner (support/sweep.ts) ended mid-round, as an `after` hook does when the fuzz or the
 * bad-input test timed out or failed with requests still running: Sweep.end() sends nothing more and
 * waits for the request in flight, so the global kill switch that request throws is undone by
 * restoreSharedState after it, not thrown again behind it for the next suites (the browser suite).
 */
import { expect } from 'chai';
import { createUser } from '../support/fixtures.js';
import { signIn } from '../support/session.js';
import {
  loadOperations,
  prepareTarget,
  Sweep,
  type Attempt,
  type SweepTarget,
  type SweptOperation,
} from '../support/sweep.js';

const PASSWORD = 'sweep end password';

describe('a sweep ended mid-round leaves no global kill switch behind', function () {
  this.timeout(120_000);
  let target: SweepTarget;
  let kill: SweptOperation;
  const sweep = new Sweep(() => target);

  before(async () => {
    kill = (await loadOperations()).find((entry) => entry.operation.operationId === 'activateKillSwitch')!;
    target = await prepareTarget();
  });

  after(async () => {
    await sweep.end();
    await target?.restoreSharedState();
  });

  it('waits for the request in flight, then sends nothing more', async () => {
    await sweep.begin();
    const attempt = (raw?: Attempt['raw']): Attempt => ({
      label: 'the global kill switch, as the fuzzer sends it (no project context)',
      swept: kill,
      method: 'POST',
      path: target.pathWith(kill),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'an abandoned round' }),
      invalid: false,
      ...(raw ? { raw } : {}),
    });
    // The round's last request, still sending (about 3 s) when its test is given up.
    let answered = false;
    const abandoned = sweep.attempt(attempt({ trickle: { bytes: 2, everyMs: 200 } })).finally(() => {
      answered = true;
    });
    await sweep.end();
    expect(answered, 'end() resolves once the request in flight has answered').to.equal(true);
    await target.restoreSharedState();

    const admin = await signIn((await createUser('admin', { password: PASSWORD })).email, PASSWORD);
    const cleared = await admin.call('POST', '/ai/autonomy/clear-kill', { reason: 'checking' });
    // 409: the switch is not on; a 200: the kill landed after the undo.
    expect(cleared.status, cleared.text).to.equal(409);
    expect(await abandoned).to.deep.equal([]);
    expect(sweep.problems).to.deep.equal([]);
    expect(sweep.sent).to.equal(1);
    expect(await sweep.attempt(attempt())).to.deep.equal([]);
    expect(sweep.sent, 'an ended sweep sends nothing').to.equal(1);
  });
});
