/**
 * Loads what an administration screen shows: `data` is null until the first answer, `reload()`
 * fetches again, `set` replaces it with what a write answered. An answer that arrives after the
 * inputs changed (another project chosen) is dropped; failures are shown with showError.
 */
import { useEffect, useState } from 'preact/hooks';
import { showError } from '../../api/client';

export function useLoaded<T>(
  load: () => Promise<T>,
  inputs: readonly unknown[],
): { data: T | null; reload: () => void; set: (data: T) => void } {
  const [data, setData] = useState<T | null>(null);
  const [generation, setGeneration] = useState(0);
  const inputsKey = JSON.stringify(inputs);
  // Other inputs (another project): forget the old answer rather than show it under the new ones.
  useEffect(() => setData(null), [inputsKey]);
  useEffect(() => {
    let current = true;
    load()
      .then((answer) => {
        if (current) setData(answer);
      })
      .catch(showError);
    return () => {
      current = false;
    };
  }, [inputsKey, generation]);
  return { data, reload: () => setGeneration((value) => value + 1), set: setData };
}

/** A timestamp as the reader's locale shows it; '—' for none. */
export function formatTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}
