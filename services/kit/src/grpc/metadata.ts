/** What travels in gRPC metadata between Tix processes: the correlation id and the principal. */
import { Metadata } from '@grpc/grpc-js';
import { isRole, isScope, type Principal } from '@tix/protos';

export const CORRELATION_ID_HEADER = 'x-correlation-id';
const PRINCIPAL_KEY = 'tix-principal';

/** What an outgoing call carries: the correlation id, the caller, and an optional deadline override. */
export interface OutgoingContext {
  correlationId?: string;
  principal?: Principal | null;
  /** Milliseconds from now; defaults to the client's deadline. */
  deadlineMs?: number;
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
  return metadata;
}

/** Reads the correlation id of an incoming call, if the caller sent a well-formed one. */
export function readCorrelationId(metadata: Metadata): string | undefined {
  const [value] = metadata.get(CORRELATION_ID_HEADER);
  return typeof value === 'string' && isCorrelationId(value) ? value : undefined;
}

/** Reads the principal of an incoming call; null when absent or malformed. */
export function readPrincipal(metadata: Metadata): Principal | null {
  const [raw] = metadata.get(PRINCIPAL_KEY);
  if (typeof raw !== 'string') return null;
  try {
    const value = JSON.parse(raw) as Partial<Principal>;
    const kinds: readonly string[] = ['api_key', 'session', 'system'];
    if (
      typeof value !== 'object' ||
      value === null ||
      !kinds.includes(value.kind ?? '') ||
      !Number.isInteger(value.user_id) ||
      !isRole(value.role) ||
      !Array.isArray(value.scopes) ||
      !value.scopes.every(isScope)
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
