/** Users as lookup.v1 messages. */
import type { lookup } from '@tix/protos';
import type { UserRecord } from './user-store.js';

/** The User message of a record (the spec's User object; never the password hash). */
export function toUserMessage(user: UserRecord): lookup.User {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role,
    is_active: user.isActive,
    is_system: user.isSystem,
  };
}
