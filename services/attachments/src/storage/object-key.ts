/** Where the attachment service keeps an attachment's bytes in its bucket (the kit's object store). */
import { randomUUID } from 'node:crypto';

/** A fresh storage key: `attachments/<project_id>/<uuid>`; never derived from the filename. */
export function newObjectKey(projectId: number): string {
  return `attachments/${projectId}/${randomUUID()}`;
}
