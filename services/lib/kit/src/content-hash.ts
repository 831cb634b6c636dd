/**
 * The hex SHA-256 of a comment's content (UTF-8): what DeleteComment's `expected_content_sha256`
 * compares, so the assistant's revert deletes its comment only while nobody has edited it. One
 * definition for the service that checks it and the one that records it.
 */
import { createHash } from 'node:crypto';

export function contentSha256(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}
