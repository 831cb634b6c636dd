/**
 * Who is writing: every change is stamped with the principal's user (created_by / updated_by) and
 * its source (api for API keys, web for browser sessions, system for internal jobs and for the
 * assistant, an `ai` principal acting as its system user).
 */
import { requirePrincipal } from '@tix/kit';
import type { Principal } from '@tix/protos';

export type SourceType = 'api' | 'web' | 'system' | 'email';

/** The acting user of a write and the source it came through. */
export interface Author {
  userId: number;
  sourceType: SourceType;
}

/** The source_type a principal's writes carry. */
export function sourceTypeOf(principal: Principal): SourceType {
  if (principal.kind === 'api_key') return 'api';
  if (principal.kind === 'session') return 'web';
  return 'system';
}

/** The author of a write; 401 when the call carries no principal (kit requirePrincipal). */
export function requireAuthor(principal: Principal | null): Author {
  const author = requirePrincipal(principal);
  return { userId: author.user_id, sourceType: sourceTypeOf(author) };
}
