/**
 * Who the mail service is when it calls its peers: the system principal of the mail user
 * (MAIL_SYSTEM_USER_ID, else lookup's "Tix Mail" user), as processing/directory.ts resolves it. One
 * source for the inbound processor, the reply consumer and the sender (server.ts passes the
 * directory's principal to all three), so every read and write is attributable to that user.
 */
import type { Principal } from '@tix/protos';

export interface SystemCaller {
  principal(): Promise<Principal>;
}
