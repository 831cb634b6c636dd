/**
 * What travels in gRPC metadata between Tix processes: the correlation id, the principal, and the
 * Idempotency-Key the gateway claimed for the request (as its scope and fingerprint hashes).
 */
import { Metadata } from '@grpc/grpc-js';
import { isPrincipalKind, isPrincipalVia, isRole, isScope, type Principal } from '@tix/protos';

export const CORRELATION_ID_HEADER = 'x-correlation-id';
const PRINCIPAL_KEY = 'tix-principal';
export const IDEMPOTENCY_SCOPE_HEADER = 'x-idempotency-scope';
export const IDEMPOTENCY_FINGERPRINT_HEADER = 'x-idempotency-fingerprint';

/**
 * A claimed Idempotency-Key: `scope` names the operation (caller, method, path, key) and
 * `fingerprint` the exact request; both sha256 hex. A service that stores `scope` with what it
 * creates can answer a retry whose gateway record was lost (notes A.2, "close the crash window").
 */
export interface IdempotencyContext {
  scope: string;
  fingerprint: string;
}

/** What an outgoing call carries: the correlation id, the caller, and an optional deadline override. */
export interface OutgoingContext {
  correlationId?: string;
  principal?: Principal | null;
  /** Milliseconds from now; defaults to the client's deadline. */
  deadlineMs?: number;
  /** The Idempotency-Key claimed for the request this call serves, if any. */
  idempotency?: IdempotencyContext;
}

// A principal is usually reused across many calls (the gateway caches it per key), so its
// serialised form is kept with it rather than rebuilt for every call.
const serialisedPrincipals = new WeakMap<Principal, string>();

/** Builds the metadata of an outgoing call. */
export function outgoingMetadata(context: OutgoingContext): Metadata {
  const metadata = new Metadata();
  if (context.correlationId) metadata.set(CORRELATION_ID_HEADER, context.correlationId);
  if (context.principal) {
    let serialised = serialisedPrincipals.get(context.principal);
    if (serialised === undefined) {
      serialised = JSON.stringify(context.principal);
      serialisedPrincipals.set(context.principal, serialised);
    }
    metadata.set(PRINCIPAL_KEY, serialised);
  }
  if (context.idempotency) {
    metadata.set(IDEMPOTENCY_SCOPE_HEADER, context.idempotency.scope);
    metadata.set(IDEMPOTENCY_FINGERPRINT_HEADER, context.idempotency.fingerprint);
  }
  return metadata;
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;

/** Reads the claimed Idempotency-Key of an incoming call; null unless both hashes are well-formed. */
export function readIdempotency(metadata: Metadata): IdempotencyContext | null {
  const [scope] = metadata.get(IDEMPOTENCY_SCOPE_HEADER);
  const [fingerprint] = metadata.get(IDEMPOTENCY_FINGERPRINT_HEADER);
  if (typeof scope !== 'string' || typeof fingerprint !== 'string') return null;
  if (!SHA256_HEX.test(scope) || !SHA256_HEX.test(fingerprint)) return null;
  // Lower case, so a stored fingerprint compares equal whatever case a sender used.
  return { scope: scope.toLowerCase(), fingerprint: fingerprint.toLowerCase() };
}

/** Reads the correlation id of an incoming call, if the caller sent a well-formed one. */
export function readCorrelationId(metadata: Metadata): string | undefined {
  const [value] = metadata.get(CORRELATION_ID_HEADER);
  return typeof value === 'string' && isCorrelationId(value) ? value : undefined;
}

/**
 * Reads the principal of an incoming call; null when absent or malformed (an unknown kind, role or
 * scope, or a `via` that is not a known type with a positive id).
 */
export function readPrincipal(metadata: Metadata): Principal | null {
  const [raw] = metadata.get(PRINCIPAL_KEY);
  if (typeof raw !== 'string') return null;
  try {
    const value = JSON.parse(raw) as Partial<Principal>;
    if (
      typeof value !== 'object' ||
      value === null ||
      !isPrincipalKind(value.kind) ||
      !Number.isInteger(value.user_id) ||
      !isRole(value.role) ||
      !Array.isArray(value.scopes) ||
      !value.scopes.every(isScope) ||
      (value.via !== undefined && !isPrincipalVia(value.via))
    ) {
      return null;
    }
    return value as Principal;
  } catch {
    return null;
  }
}

/** Correlation ids we accept from outside: short, printable, no spaces. */
export function isCorrelationId(value: string): boolean {
  return /^[A-Za-z0-9._:@/+=-]{1,128}$/.test(value);
}
