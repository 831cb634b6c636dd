/**
 * Verifying API keys with a short-lived memory cache, so the hot path costs no gRPC call. Entries are
 * keyed by sha256(key) (the raw key is never kept), live AUTH_CACHE_TTL_MS, and are evicted when an
 * `api_key.revoked` event names their key id. While the revocation feed is disconnected the cache
 * cannot hear revocations, so entries live at most `disconnectedTtlMs` (revocation still takes
 * effect within seconds) and the cache is emptied when the feed reconnects.
 */
import { createHash } from 'node:crypto';
import { AppError, type ServiceClient } from '@tix/kit';
import { isRole, isScope, type lookup, type Principal } from '@tix/protos';
import { TtlCache } from '@tix/kit';

export const INVALID_API_KEY_MESSAGE = 'Invalid API key';

export interface ApiKeyAuthenticator {
  /** The principal of `key`; 401 `Invalid API key` when it is malformed, unknown or revoked. */
  authenticate(key: string, correlationId: string): Promise<Principal>;
  /** Forgets every cached authentication of key `keyId`; returns how many entries went. */
  evictKey(keyId: number): number;
  /** Forgets every cached authentication of keys owned by `userId` (deactivated, role changed). */
  evictUser(userId: number): number;
  /** Told by the revocation feed whether it can currently hear revocations. */
  setRevocationFeedConnected(connected: boolean): void;
  /** Number of cached authentications (for tests and metrics). */
  readonly cachedCount: number;
}

export interface ApiKeyAuthenticatorOptions {
  /** The lookup service client; null when lookup is not deployed (every key then gets 503). */
  lookup: Pick<ServiceClient<'lookup'>, 'AuthenticateApiKey'> | null;
  ttlMs: number;
  /** Longest life of an entry while the revocation feed is disconnected. */
  disconnectedTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/** Visible ASCII, bounded: anything else cannot be a key and is refused without a service call. */
const PLAUSIBLE_KEY = /^[\x21-\x7e]{8,256}$/;

/** The principal services receive for an API key caller. */
export function apiKeyPrincipal(reply: lookup.ApiKeyPrincipal__Output): Principal {
  if (!isRole(reply.role)) throw AppError.internal(`lookup returned an unknown role for key ${reply.key_id}`);
  const principal: Principal = {
    kind: 'api_key',
    user_id: reply.user_id,
    role: reply.role,
    scopes: reply.scopes.filter(isScope),
    key_id: reply.key_id,
  };
  if (reply.project_id !== undefined && reply.project_id !== null) principal.project_id = reply.project_id;
  return principal;
}

/** Creates the caching authenticator described in the file header. */
export function createApiKeyAuthenticator(options: ApiKeyAuthenticatorOptions): ApiKeyAuthenticator {
  const disconnectedTtlMs = options.disconnectedTtlMs ?? 5_000;
  const cache = new TtlCache<string, Principal>({
    maxEntries: options.maxEntries ?? 10_000,
    now: options.now,
  });
  const inFlight = new Map<string, Promise<Principal>>();
  let feedConnected = false;
  // Bumped by every eviction: a verification that started before a revocation must not be cached.
  let epoch = 0;

  const effectiveTtl = () => (feedConnected ? options.ttlMs : Math.min(options.ttlMs, disconnectedTtlMs));

  async function verify(key: string, hash: string, correlationId: string): Promise<Principal> {
    if (!options.lookup) throw AppError.unavailable('The lookup service is not deployed');
    const startedEpoch = epoch;
    let reply: lookup.ApiKeyPrincipal__Output;
    try {
      reply = await options.lookup.AuthenticateApiKey({ key }, { correlationId });
    } catch (error) {
      if (error instanceof AppError && error.kind === 'unauthenticated') {
        throw AppError.unauthenticated(INVALID_API_KEY_MESSAGE);
      }
      throw error;
    }
    const principal = apiKeyPrincipal(reply);
    if (epoch === startedEpoch) cache.set(hash, principal, effectiveTtl());
    return principal;
  }

  return {
    async authenticate(key, correlationId) {
      if (!PLAUSIBLE_KEY.test(key)) throw AppError.unauthenticated(INVALID_API_KEY_MESSAGE);
      const hash = createHash('sha256').update(key).digest('base64');
      const cached = cache.get(hash);
      if (cached) return cached;
      let pending = inFlight.get(hash);
      if (!pending) {
        pending = verify(key, hash, correlationId).finally(() => inFlight.delete(hash));
        inFlight.set(hash, pending);
      }
      return pending;
    },
    evictKey(keyId) {
      epoch += 1;
      return cache.deleteWhere((principal) => principal.key_id === keyId);
    },
    evictUser(userId) {
      epoch += 1;
      return cache.deleteWhere((principal) => principal.user_id === userId);
    },
    setRevocationFeedConnected(connected) {
      if (connected === feedConnected) return;
      feedConnected = connected;
      epoch += 1;
      // Revocations published while we were deaf are lost: start clean once we can hear again,
      // and stop trusting long-lived entries as soon as we cannot.
      if (connected) cache.clear();
      else cache.capExpiry(disconnectedTtlMs);
    },
    get cachedCount() {
      return cache.size;
    },
  };
}
