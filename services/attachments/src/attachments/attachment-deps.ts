/** What the attachment use cases work with (wired in server.ts). */
import type { UploadPolicy } from '../config.js';
import type { ObjectStore } from '@tix/kit';
import type { AttachmentStore } from './attachment-store.js';
import type { TicketAccess } from './ticket-access.js';

export interface AttachmentDeps {
  attachments: AttachmentStore;
  objects: ObjectStore;
  tickets: TicketAccess;
  uploads: UploadPolicy;
}
