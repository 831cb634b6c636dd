/**
 * What the outbound tests share: a receiving relay (smtp-server over TCP, standing in for the
 * operator's relay) that records every message, parsed as the inbound side parses mail.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseInbound, isRefusal, type ParsedInbound } from '@tix/threading';

export interface RelayedMail {
  envelopeFrom: string | undefined;
  envelopeTo: string[];
  raw: string;
  parsed: ParsedInbound;
}

export interface TestRelay {
  port: number;
  received: RelayedMail[];
  /** Recipients the relay refuses for good (550). */
  refuse: Set<string>;
  close(): Promise<void>;
}

/** A local relay on a free loopback port, plain SMTP, no authentication. */
export async function startTestRelay(
  onMail?: (mail: RelayedMail) => void | Promise<void>,
): Promise<TestRelay> {
  const received: RelayedMail[] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address.toLowerCase())) {
        const error = new Error('5.1.1 mailbox unavailable') as Error & { responseCode: number };
        error.responseCode = 550;
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        void parseInbound(raw).then(async (parsed) => {
          if (isRefusal(parsed)) throw new Error(`the relay could not parse a message: ${parsed.refused}`);
          const mail: RelayedMail = {
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
            envelopeTo: session.envelope.rcptTo.map((recipient) => recipient.address),
            raw: raw.toString('utf8'),
            parsed,
          };
          received.push(mail);
          callback();
          await onMail?.(mail);
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    refuse,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The value of header `name` in a raw message (unfolded), or undefined. */
export function rawHeader(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const match = new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(unfolded);
  return match?.[1]?.trim();
}
