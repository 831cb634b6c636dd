/**
 * Coalesces lookups made in the same turn of the event loop into one call: every `load(key)` before
 * the next setImmediate shares one `loadMany(keys)`. Under load many deliveries start together, and
 * one query for all of them costs about as much as one for each.
 */

/** A keyed loader whose concurrent calls are answered by one batch. */
export function createBatcher<K, V>(
  loadMany: (keys: K[]) => Promise<Map<K, V>>,
  missing: V,
): (key: K) => Promise<V> {
  let pending:
    | { keys: Set<K>; waiters: { key: K; resolve: (value: V) => void; reject: (error: unknown) => void }[] }
    | undefined;

  const flush = () => {
    const batch = pending!;
    pending = undefined;
    loadMany([...batch.keys]).then(
      (values) => {
        for (const waiter of batch.waiters)
          waiter.resolve(values.has(waiter.key) ? values.get(waiter.key)! : missing);
      },
      (error: unknown) => {
        for (const waiter of batch.waiters) waiter.reject(error);
      },
    );
  };

  return (key) =>
    new Promise<V>((resolve, reject) => {
      if (!pending) {
        pending = { keys: new Set(), waiters: [] };
        setImmediate(flush);
      }
      pending.keys.add(key);
      pending.waiters.push({ key, resolve, reject });
    });
}

/**
 * Coalesces writes made in the same turn of the event loop into one call: every `write(item)` before
 * the next setImmediate shares one `writeMany(items)`, whose answer says which items took effect.
 * Each statement is a commit (a WAL flush); one for many items is what lets deliveries scale.
 */
export function createCoalescer<I, K>(
  writeMany: (items: I[]) => Promise<Set<K>>,
  keyOf: (item: I) => K,
): (item: I) => Promise<boolean> {
  let pending: { item: I; resolve: (done: boolean) => void; reject: (error: unknown) => void }[] | undefined;

  const flush = () => {
    const batch = pending!;
    pending = undefined;
    writeMany(batch.map((entry) => entry.item)).then(
      (done) => {
        for (const entry of batch) entry.resolve(done.has(keyOf(entry.item)));
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      },
    );
  };

  return (item) =>
    new Promise<boolean>((resolve, reject) => {
      if (!pending) {
        pending = [];
        setImmediate(flush);
      }
      pending.push({ item, resolve, reject });
    });
}
