/**
 * The one header intake reads: Message-ID, from the header block of a raw message (unfolded, case
 * insensitive). Everything else is parsed after intake (docs/mail.md, "Setup").
 */
const MAX_MESSAGE_ID_LENGTH = 998;

export function extractMessageId(raw: Buffer): string | null {
  const text = raw.subarray(0, Math.min(raw.length, 256 * 1024)).toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const headers = (end === -1 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  for (const line of headers.split(/\r?\n/)) {
    const match = /^message-id\s*:\s*(.*)$/i.exec(line);
    if (!match) continue;
    const value = match[1]!.trim();
    const angle = /<([^<>\s]+)>/.exec(value);
    const id = angle ? angle[1]! : (value.split(/\s+/)[0] ?? '');
    if (id === '' || id.length > MAX_MESSAGE_ID_LENGTH) return null;
    return id;
  }
  return null;
}
