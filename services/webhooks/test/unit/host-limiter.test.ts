import { expect } from 'chai';
import { createHostLimiter, LimiterClosed } from '../../src/delivery/host-limiter.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Acquires a slot for `host`, recording the order in which slots were granted. */
function take(limiter: ReturnType<typeof createHostLimiter>, host: string, name: string, granted: string[]) {
  const slot = { release: undefined as (() => void) | undefined, error: undefined as unknown };
  limiter.acquire(host).then(
    (release) => {
      granted.push(name);
      slot.release = release;
    },
    (error: unknown) => (slot.error = error),
  );
  return slot;
}

describe('host limiter', () => {
  it('grants at most perHost slots per host; other hosts are not held up', async () => {
    const limiter = createHostLimiter({ overall: 10, perHost: 2 });
    const granted: string[] = [];
    take(limiter, 'a', 'a1', granted);
    take(limiter, 'a', 'a2', granted);
    const a3 = take(limiter, 'a', 'a3', granted);
    take(limiter, 'b', 'b1', granted);
    await tick();
    expect(granted).to.deep.equal(['a1', 'a2', 'b1']);
    expect(limiter.waiting('a')).to.equal(1);
    expect(limiter.running()).to.equal(3);
    expect(a3.release).to.equal(undefined);
  });

  it('a released slot goes to the next waiter of that host, once per release', async () => {
    const limiter = createHostLimiter({ overall: 10, perHost: 1 });
    const granted: string[] = [];
    const a1 = take(limiter, 'a', 'a1', granted);
    take(limiter, 'a', 'a2', granted);
    take(limiter, 'a', 'a3', granted);
    await tick();
    a1.release!();
    a1.release!(); // a second call frees nothing more
    await tick();
    expect(granted).to.deep.equal(['a1', 'a2']);
    expect(limiter.waiting('a')).to.equal(1);
  });

  it('shares freed overall slots among waiting hosts in turn', async () => {
    const limiter = createHostLimiter({ overall: 1, perHost: 5 });
    const granted: string[] = [];
    const slots = new Map<string, ReturnType<typeof take>>();
    for (const [host, name] of [
      ['a', 'a1'],
      ['a', 'a2'],
      ['a', 'a3'],
      ['b', 'b1'],
      ['b', 'b2'],
    ] as const) {
      slots.set(name, take(limiter, host, name, granted));
    }
    for (let i = 0; i < 5; i += 1) {
      await tick();
      slots.get(granted[granted.length - 1]!)!.release!();
    }
    await tick();
    expect(granted).to.deep.equal(['a1', 'a2', 'b1', 'a3', 'b2']);
  });

  it('idle() waits for every held slot; close() refuses waiters and newcomers', async () => {
    const limiter = createHostLimiter({ overall: 1, perHost: 1 });
    const granted: string[] = [];
    const first = take(limiter, 'a', 'a1', granted);
    const second = take(limiter, 'a', 'a2', granted);
    await tick();
    let idle = false;
    const waiting = limiter.idle().then(() => (idle = true));
    limiter.close();
    const late = take(limiter, 'b', 'b1', granted);
    await tick();
    expect(second.error).to.be.instanceOf(LimiterClosed);
    expect(late.error).to.be.instanceOf(LimiterClosed);
    expect(idle).to.equal(false);
    first.release!();
    await waiting;
    expect(idle).to.equal(true);
    expect(granted).to.deep.equal(['a1']);
  });
});
