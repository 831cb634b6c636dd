/**
 * A fast pre-scan of the MIME structure, run before mailparser so hostile mail (huge, thousands of
 * parts, deep nesting) is refused in linear time instead of being handed to the parser (docs/mail.md).
 */
export interface ParseLimits {
  /** Largest raw message in bytes. */
  maxBytes: number;
  /** Most MIME parts (every boundary delimiter counts). */
  maxParts: number;
  /** Deepest multipart / message/rfc822 nesting. */
  maxDepth: number;
  /** Milliseconds mailparser may take before the message is called unparseable. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: ParseLimits = {
  maxBytes: 25 * 1024 * 1024,
  maxParts: 500,
  maxDepth: 20,
  timeoutMs: 10_000,
};

export type Refusal = { refused: 'too_large' | 'too_many_parts' | 'too_deep' | 'unparseable' };

function boundaryOf(headerBlock: string): string | null {
  const unfolded = headerBlock.replace(/\r?\n[ \t]+/g, ' ');
  const ct = /^content-type:(.*)$/im.exec(unfolded);
  if (!ct || !/^\s*multipart\//i.test(ct[1] ?? '')) return null;
  const b = /boundary\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(ct[1] ?? '');
  return b ? (b[1] ?? b[2] ?? '').trim() : null;
}

function isEmbeddedMessage(headerBlock: string): boolean {
  const unfolded = headerBlock.replace(/\r?\n[ \t]+/g, ' ');
  const ct = /^content-type:\s*message\/(rfc822|global)/im.test(unfolded);
  const enc = /^content-transfer-encoding:\s*(base64|quoted-printable)/im.test(unfolded);
  return ct && !enc;
}

/** null when the message is within the limits, else the refusal. Never throws. */
export function checkLimits(raw: Buffer, limits: ParseLimits): Refusal | null {
  if (raw.length > limits.maxBytes) return { refused: 'too_large' };
  const text = raw.toString('latin1');
  const lines = text.split('\n');
  const stack: string[] = [];
  let parts = 0;
  let inHeaders = true;
  let header = '';
  let depthBase = 0; // message/rfc822 nesting without boundaries
  const closeHeaders = (): Refusal | null => {
    inHeaders = false;
    const boundary = boundaryOf(header);
    if (boundary) {
      stack.push(boundary);
      if (stack.length + depthBase > limits.maxDepth) return { refused: 'too_deep' };
    } else if (isEmbeddedMessage(header)) {
      depthBase += 1;
      if (stack.length + depthBase > limits.maxDepth) return { refused: 'too_deep' };
      inHeaders = true;
    }
    header = '';
    return null;
  };
  for (const rawLine of lines) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (inHeaders) {
      if (line === '') {
        const r = closeHeaders();
        if (r) return r;
        continue;
      }
      if (header.length < 64 * 1024) header += line + '\n';
      continue;
    }
    if (stack.length === 0 || !line.startsWith('--')) continue;
    const trimmed = line.trimEnd();
    for (let i = stack.length - 1; i >= 0; i--) {
      const b = stack[i];
      if (trimmed === `--${b}--`) {
        stack.length = i;
        break;
      }
      if (trimmed === `--${b}`) {
        stack.length = i + 1;
        parts += 1;
        if (parts > limits.maxParts) return { refused: 'too_many_parts' };
        inHeaders = true;
        header = '';
        break;
      }
    }
  }
  return null;
}
