/**
 * Short messages in a live region: `toast('Saved')`, `toast(message, { kind: 'error' })`. The
 * <Toasts/> region is mounted once by the shell.
 */
import { signal } from '@preact/signals';
import './toast.css';

export interface ToastOptions {
  kind?: 'info' | 'error';
  /** How long it stays; errors stay longer by default. */
  durationMs?: number;
}

interface ShownToast {
  id: number;
  message: string;
  kind: 'info' | 'error';
}

const shown = signal<ShownToast[]>([]);
let nextId = 1;

export function toast(message: string, options: ToastOptions = {}): void {
  const kind = options.kind ?? 'info';
  const id = nextId++;
  // The same message twice in a row (a burst of failures) is shown once.
  if (shown.value.some((entry) => entry.message === message)) return;
  shown.value = [...shown.value, { id, message, kind }];
  const duration = options.durationMs ?? (kind === 'error' ? 8000 : 4000);
  window.setTimeout(() => dismiss(id), Math.max(duration, 2000));
}

function dismiss(id: number): void {
  shown.value = shown.value.filter((entry) => entry.id !== id);
}

export function Toasts() {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {shown.value.map((entry) => (
        <div key={entry.id} class={`toast toast-${entry.kind}`}>
          <span>{entry.message}</span>
          <button type="button" class="toast-close" aria-label="Dismiss" onClick={() => dismiss(entry.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
