/**
 * What the signed-in user may open and do, decided by the server's facts only: the operationIds GET
 * /auth/me lists as `allowed_operations` (from the same declarations that refuse the calls), and for
 * another person's comment the contract's rule. The console holds no role table or role ordering.
 * Pure (no signals, no DOM): session.ts feeds it the signed-in user.
 */
import { isRole, mayChangeAnyComment } from '@tix/contract';
import type { operations } from './generated/api';

/** An operationId of the session host's OpenAPI document. */
export type OperationId = keyof operations;

/**
 * Who may open a screen: 'signed_out' (sign-in and the password pages: a signed-in user is sent on),
 * 'anyone', or those allowed to call `operation` (the signed-out are sent to sign-in).
 */
export type Access = 'signed_out' | 'anyone' | { operation: OperationId };

/** The signed-in user's grants: their role as the server names it, and the operations they may call. */
export interface Grants {
  role: string | null;
  operations: ReadonlySet<string>;
}

/**
 * The rule behind each capability a screen asks about: an operation the user may call, or (for a
 * comment someone else wrote) the contract's rule on changing anyone's comment.
 */
export const CAPABILITIES = {
  'tickets.read': { operation: 'getTicket' },
  'tickets.write': { operation: 'updateTicket' },
  'tickets.delete': { operation: 'deleteTicket' },
  'comments.write': { operation: 'createComment' },
  'comments.edit_any': { anyComment: 'edit' },
  'comments.delete_any': { anyComment: 'delete' },
  'customers.write': { operation: 'updateCustomer' },
  'customers.merge': { operation: 'mergeCustomer' },
  'customers.delete': { operation: 'deleteCustomer' },
  'organizations.write': { operation: 'updateOrganization' },
  'organizations.delete': { operation: 'deleteOrganization' },
  'ai.suggest': { operation: 'suggestReply' },
  'ai.review': { operation: 'revertAutonomousAction' },
  'ai.admin': { operation: 'updateGuardrails' },
  admin: { operation: 'createUser' },
} as const satisfies Record<string, { operation: OperationId } | { anyComment: 'edit' | 'delete' }>;
export type Capability = keyof typeof CAPABILITIES;

/** True when a route whose access is `access` opens for a user with `grants` (null: signed out). */
export function mayOpen(access: Access, grants: Grants | null): boolean {
  if (access === 'anyone' || access === 'signed_out') return true;
  return grants !== null && grants.operations.has(access.operation);
}

/** True when the access needs a signed-in user. */
export function needsSignIn(access: Access): boolean {
  return typeof access === 'object';
}

/** True when `grants` give `capability`. */
export function allows(capability: Capability, grants: Grants | null): boolean {
  if (grants === null) return false;
  const rule: { operation: OperationId } | { anyComment: 'edit' | 'delete' } = CAPABILITIES[capability];
  if ('operation' in rule) return grants.operations.has(rule.operation);
  return isRole(grants.role) && mayChangeAnyComment(grants.role, rule.anyComment);
}
