/**
 * Browser errors go to POST /api/client-errors (logged with the correlation id on the server), at
 * most a few per page load so that a failing loop cannot flood the log; a failed report is dropped.
 */
import { api } from './api/client';

const MAX_REPORTS_PER_PAGE = 10;
let reported = 0;

function release(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="tix-release"]')?.content ?? 'unknown';
}

export function reportClientError(error: unknown): void {
  if (reported >= MAX_REPORTS_PER_PAGE) return;
  reported += 1;
  const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 2000);
  const stack = error instanceof Error && error.stack ? error.stack.slice(0, 16000) : undefined;
  const body = {
    message: message || 'Unknown error',
    url: `${window.location.pathname}${window.location.search}`.slice(0, 2000),
    release: release(),
    ...(stack ? { stack } : {}),
  };
  api.POST('/client-errors', { body }).catch(() => {
    // Nothing more to do: the report itself failed.
  });
}

export function installErrorReporting(): void {
  window.addEventListener('error', (event) => reportClientError(event.error ?? event.message));
  window.addEventListener('unhandledrejection', (event) => reportClientError(event.reason));
}
