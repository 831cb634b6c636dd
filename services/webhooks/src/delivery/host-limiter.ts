/**
 * Bounded concurrency for delivery attempts, so that one slow or dead receiver never delays the
 * others: at most `overall` attempts in flight at once, at most `perHost` of them to one target
 * host (host:port). An attempt waits for a slot in its host's queue (first come, first served);
 * freed slots go to waiting hosts in turn (round robin), so a busy host cannot starve the rest.
 * Only the attempt itself holds a slot; recording it does not. No I/O here.
 */

/** Thrown to waiters when the limiter is closed (shutdown). */
export class LimiterClosed extends Error {
  override readonly name = 'LimiterClosed';
}

export interface HostLimiter {
  /** Resolves with the slot's release function once `host` may start one more attempt. */
  acquire(host: string): Promise<() => void>;
  /** Attempts waiting for a slot of `host`. */
  waiting(host: string): number;
  /** Attempts holding a slot. */
  running(): number;
  /** Resolves when no slot is held. */
  idle(): Promise<void>;
  /** Refuses every waiting and future acquire with LimiterClosed; held slots stay until released. */
  close(): void;
}

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (error: Error) => void;
}

/** A limiter with the given bounds. */
export function createHostLimiter(options: { overall: number; perHost: number }): HostLimiter {
  const runningByHost = new Map<string, number>();
  // Insertion order is the round-robin order; a host that got a slot moves to the back.
  const queues = new Map<string, Waiter[]>();
  let running = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const canStart = (host: string) =>
    running < options.overall && (runningByHost.get(host) ?? 0) < options.perHost;

  const grant = (host: string, waiter: Waiter) => {
    running += 1;
    runningByHost.set(host, (runningByHost.get(host) ?? 0) + 1);
    let released = false;
    waiter.resolve(() => {
      if (released) return;
      released = true;
      running -= 1;
      const left = (runningByHost.get(host) ?? 1) - 1;
      if (left === 0) runningByHost.delete(host);
      else runningByHost.set(host, left);
      serveWaiting();
      if (running === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    });
  };

  const serveWaiting = () => {
    let progressed = true;
    while (progressed && running < options.overall) {
      progressed = false;
      for (const [host, queue] of queues) {
        if (!canStart(host)) continue;
        const waiter = queue.shift()!;
        queues.delete(host);
        if (queue.length > 0) queues.set(host, queue);
        grant(host, waiter);
        progressed = true;
        break;
      }
    }
  };

  return {
    acquire(host) {
      return new Promise((resolve, reject) => {
        if (closed) return reject(new LimiterClosed('the limiter is closed'));
        const waiter = { resolve, reject };
        if (!queues.has(host) && canStart(host)) return grant(host, waiter);
        const queue = queues.get(host);
        if (queue) queue.push(waiter);
        else queues.set(host, [waiter]);
        serveWaiting();
      });
    },
    waiting: (host) => queues.get(host)?.length ?? 0,
    running: () => running,
    idle: () => (running === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve))),
    close() {
      closed = true;
      for (const queue of queues.values()) {
        for (const waiter of queue) waiter.reject(new LimiterClosed('the limiter is closed'));
      }
      queues.clear();
    },
  };
}
