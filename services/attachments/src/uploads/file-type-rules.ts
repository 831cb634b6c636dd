/**
 * Which files may be stored, and as what type. The type is decided from the file's bytes (magic
 * numbers, via file-type), never from the client's claim alone:
 *
 * 1. a recognised signature decides the type; it must be allowed, and a specific claim that differs
 *    from it is refused (an .exe renamed .png, claimed image/png, is detected as
 *    application/x-msdownload: refused);
 * 2. without a signature only text is possible: accepted when the client claimed text/plain or
 *    text/csv (and that type is allowed) and the whole file is UTF-8 without NUL bytes;
 * 3. anything else is refused. Types browsers execute (HTML, SVG, XHTML, XML, JavaScript) can never
 *    be configured as allowed.
 *
 * A claim of application/octet-stream (or none) is no claim: what the bytes are decides.
 */
import { AppError } from '@tix/kit';
import { ATTACHMENT_LIMITS } from '@tix/protos';

/** 25 MiB. */
export const DEFAULT_MAX_BYTES = ATTACHMENT_LIMITS.defaultMaxBytes;
/** size_bytes is an int32 in the contract and the database. */
export const MAX_CONFIGURABLE_BYTES = ATTACHMENT_LIMITS.maxConfigurableBytes;
/** How much of the head of a file the signature check reads (file-type needs ~4100 bytes; OOXML more). */
export const SNIFF_BYTES = 64 * 1024;

export const ALLOWED_TYPES_DEFAULT = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'application/zip',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'text/plain',
  'text/csv',
] as const;

/** Types a browser may execute or render with scripts: never stored, whatever the configuration says. */
export const NEVER_ALLOWED_TYPES: ReadonlySet<string> = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/xml',
  'application/xml',
  'text/javascript',
  'application/javascript',
  'application/ecmascript',
]);

/** Types that have no signature and are accepted on a checked claim (rule 2). */
export const TEXT_TYPES: ReadonlySet<string> = new Set(['text/plain', 'text/csv']);

/** Claims that say nothing about the content. */
const NO_CLAIM: ReadonlySet<string> = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/binary',
  'application/unknown',
]);

/** Other spellings clients use for the same types. */
const CLAIM_ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'application/x-zip-compressed': 'application/zip',
  'application/x-zip': 'application/zip',
  'application/x-pdf': 'application/pdf',
  'text/comma-separated-values': 'text/csv',
  'text/x-csv': 'text/csv',
  'application/csv': 'text/csv',
};

/** Zip-based formats: a client calling one of them application/zip is not wrong. */
const ZIP_BASED: ReadonlySet<string> = new Set([
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
]);

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** Problems with a configured allow-list (empty when it is usable). */
export function checkAllowedTypes(types: readonly string[]): string[] {
  if (types.length === 0) return ['at least one type is required'];
  const problems: string[] = [];
  for (const type of types.map((value) => value.toLowerCase())) {
    if (!MIME_TYPE.test(type)) problems.push(`"${type}" is not a MIME type`);
    else if (NEVER_ALLOWED_TYPES.has(type))
      problems.push(`"${type}" can never be allowed (browsers execute it)`);
  }
  return problems;
}

/** The client's claim as a comparable type, or null when it makes none (octet-stream, empty). */
export function normalizeClaimedType(claimed: string): string | null {
  const base = (claimed.split(';')[0] ?? '').trim().toLowerCase();
  if (NO_CLAIM.has(base)) return null;
  return CLAIM_ALIASES[base] ?? base;
}

/** What the bytes of a received file showed. */
export interface FileEvidence {
  /** The MIME type of the recognised signature, if any. */
  detectedType: string | undefined;
  /** The whole file is valid UTF-8 and contains no NUL byte. */
  isUtf8Text: boolean;
}

/** 422 on `file`. */
export function fileRefused(message: string): AppError {
  return AppError.validation({ file: [message] });
}

/** `File is larger than 25 MB` for 25 MiB (the gateway's message, from the same function). */
export { fileTooLargeMessage } from '@tix/protos';

export const FILE_EMPTY_MESSAGE = 'File is empty';

/** The type to store the file as, per the rules in the file header; throws a 422 on `file` otherwise. */
export function decideStoredType(
  evidence: FileEvidence,
  claimedType: string,
  allowedTypes: ReadonlySet<string>,
): string {
  const claim = normalizeClaimedType(claimedType);
  const detected = evidence.detectedType;
  if (detected !== undefined) {
    if (!allowedTypes.has(detected) || NEVER_ALLOWED_TYPES.has(detected)) {
      throw fileRefused(`File type ${detected} is not allowed`);
    }
    const consistent =
      claim === null || claim === detected || (claim === 'application/zip' && ZIP_BASED.has(detected));
    if (!consistent) throw fileRefused(`File content is ${detected}, not the declared ${claim}`);
    return detected;
  }
  if (claim !== null && TEXT_TYPES.has(claim) && allowedTypes.has(claim)) {
    if (!evidence.isUtf8Text) throw fileRefused(`File declared as ${claim} is not UTF-8 text`);
    return claim;
  }
  throw fileRefused('File type is not supported');
}
