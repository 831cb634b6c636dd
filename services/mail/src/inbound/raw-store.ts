/**
 * The raw messages in the object store, through the kit's object store client (the one the
 * attachment service uses too), in the mail service's bucket (MAIL_S3_BUCKET). Keys are
 * content-addressed per mailbox (`<mailbox>/<sha256>.eml`), so storing the same bytes twice is one
 * object. A store that cannot be reached fails with 503 `File storage is unavailable`.
 */
import { createHash } from 'node:crypto';
import { createObjectStore, type ObjectStoreConfig } from '@tix/kit';

export interface RawStore {
  ensureBucket(): Promise<void>;
  /** Stores `raw`; resolves once the store has it. Returns its key. */
  put(mailboxId: number, raw: Buffer): Promise<string>;
  get(key: string): Promise<Buffer>;
}

export function createRawStore(config: ObjectStoreConfig): RawStore {
  const objects = createObjectStore(config);
  return {
    ensureBucket: () => objects.ensureBucket(),
    async put(mailboxId, raw) {
      const key = `${mailboxId}/${createHash('sha256').update(raw).digest('hex')}.eml`;
      await objects.putBytes(key, raw, 'message/rfc822');
      return key;
    },
    get: (key) => objects.readBytes(key),
  };
}
