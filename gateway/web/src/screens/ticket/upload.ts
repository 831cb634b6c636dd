/**
 * Uploads one file with progress: fetch cannot report upload progress, so this one request goes
 * through XMLHttpRequest. It sends what the API client sends on a write (the session's CSRF token,
 * an Idempotency-Key) and reads the answer through the client's `call`, so its errors are the
 * same ApiError (422 field errors, 401 signing out, 429's wait) as everywhere else.
 */
import { API_BASE, ApiError, call, refreshCsrfToken } from '../../api/client';
import { onSignedOut } from '../../api/auth-events';
import { toast } from '../../ui/toast';
import type { Attachment } from './model';

export async function uploadAttachment(
  ticketId: number,
  projectId: number,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<Attachment> {
  // The session's token (GET /csrf-token answers the current one; it rotates only at sign-in/out).
  const token = await refreshCsrfToken();
  const form = new FormData();
  form.append('file', file, file.name);
  const { status, text, retryAfter } = await new Promise<{
    status: number;
    text: string;
    retryAfter: string | null;
  }>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${API_BASE}/tickets/${ticketId}/attachments?project_id=${projectId}`);
    request.setRequestHeader('X-CSRF-Token', token);
    request.setRequestHeader('Idempotency-Key', crypto.randomUUID());
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    request.addEventListener('load', () =>
      resolve({
        status: request.status,
        text: request.responseText,
        retryAfter: request.getResponseHeader('Retry-After'),
      }),
    );
    request.addEventListener('error', () =>
      reject(new ApiError(0, 'The upload failed: the server could not be reached')),
    );
    request.addEventListener('abort', () => reject(new ApiError(0, 'The upload was cancelled')));
    request.send(form);
  });
  if (status === 401) onSignedOut();
  if (status === 429) {
    toast(`Too many requests: try again in ${retryAfter ?? 1} s.`, { kind: 'error' });
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(status, `The server answered ${status}`);
  }
  const ok = status >= 200 && status < 300;
  const response = new Response(null, {
    status,
    headers: retryAfter ? { 'Retry-After': retryAfter } : {},
  });
  const answer = await call(
    Promise.resolve(
      ok ? { data: body as { data: { attachment: Attachment } }, response } : { error: body, response },
    ),
  );
  return answer.attachment;
}
