/**
 * A secret the server shows only once (an API key's value, a webhook's signing secret): the value
 * in a read-only field, a Copy button, and a plain warning that it cannot be shown again.
 */
import { useId, useRef } from 'preact/hooks';
import { toast } from '../../ui/toast';
import { Button } from '../../ui/button';

interface ShownOnceProps {
  /** What it is ("API key", "Signing secret"): the field's label. */
  label: string;
  value: string;
  /** Why it matters, under the title (default: it cannot be shown again). */
  warning?: string;
  onDone: () => void;
}

const NEVER_AGAIN =
  'This is the only time it is shown: Tix keeps no readable copy. If you lose it, create a new one.';

export function ShownOnce({ label, value, warning = NEVER_AGAIN, onDone }: ShownOnceProps) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      toast(`${label} copied`);
    } catch {
      // No clipboard permission (an insecure origin, a refusing browser): select it for Ctrl+C.
      input.current?.select();
      toast('Copying was refused: the value is selected, press Ctrl+C.', { kind: 'error' });
    }
  }
  return (
    <div class="admin-shown-once" role="region" aria-labelledby={`${id}-title`}>
      <p class="admin-shown-once-title" id={`${id}-title`}>
        Copy it now: {label}
      </p>
      <p id={`${id}-warning`} class="admin-warning">
        {warning}
      </p>
      <div class="admin-shown-once-value">
        <label for={id} class="visually-hidden">
          {label}
        </label>
        <input
          ref={input}
          id={id}
          readOnly
          value={value}
          aria-describedby={`${id}-warning`}
          onFocus={(event) => event.currentTarget.select()}
        />
        <Button kind="primary" onClick={() => void copy()}>
          Copy
        </Button>
      </div>
      <Button kind="quiet" onClick={onDone}>
        I have stored it
      </Button>
    </div>
  );
}
