/**
 * A real mail service for gateway tests, with the S3 test server it keeps raw mail in: what
 * startRealServices' `peers.mail` starts (its stop stops both).
 */
import { startTestS3Server } from '@tix/attachment-service/testing';
import { startTestMailServer } from '@tix/mail-service/testing';

export async function startMailPeer(lookupAddress: string, label: string) {
  const s3 = await startTestS3Server({ bucket: 'tix-mail' });
  const mail = await startTestMailServer({ lookupAddress, store: s3.config, label });
  return {
    address: mail.address,
    smtpPort: mail.smtpPort,
    databaseUrl: mail.databaseUrl,
    stop: async () => {
      await mail.stop();
      await s3.stop();
    },
  };
}
