/** The ticket service's configuration, from the environment, validated once at start. */
import { z } from 'zod';
import { serviceConfig } from '@tix/kit';

const nonNegativeInt = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/**
 * How long values read from the lookup service are reused, in milliseconds (0 = not cached).
 * Projects and ticket types change rarely (30 s); users a little shorter (10 s), since a deactivated
 * user should stop being assignable soon.
 */
export const DEFAULT_CACHE_TTLS = { projectMs: 30_000, ticketTypeMs: 30_000, userMs: 10_000 };

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export const loadConfig = serviceConfig('tickets', {
  databasePoolSize: 20,
  // Below the gateway's 5 s deadline: an expensive list or search is cancelled and answered 504 by
  // the service, so the gateway's breaker keeps serving every other ticket call (docs/decisions.md).
  statementTimeoutMs: 4_000,
  peers: { lookup: 'the ticket service needs the lookup service (projects, ticket types, users)' },
  variables: {
    /** How long a project (prefix, statuses) read from lookup is reused; 0 disables the cache. */
    PROJECT_CACHE_TTL_MS: nonNegativeInt(DEFAULT_CACHE_TTLS.projectMs),
    /** How long a ticket type (field_schema) read from lookup is reused; 0 disables the cache. */
    TICKET_TYPE_CACHE_TTL_MS: nonNegativeInt(DEFAULT_CACHE_TTLS.ticketTypeMs),
    /** How long a user (exists, is active) read from lookup is reused; 0 disables the cache. */
    USER_CACHE_TTL_MS: nonNegativeInt(DEFAULT_CACHE_TTLS.userMs),
  },
  read: (values) => ({
    cacheTtls: {
      projectMs: values.PROJECT_CACHE_TTL_MS,
      ticketTypeMs: values.TICKET_TYPE_CACHE_TTL_MS,
      userMs: values.USER_CACHE_TTL_MS,
    },
  }),
});

export type TicketsConfig = ReturnType<typeof loadConfig>;
export type LookupCacheTtls = TicketsConfig['cacheTtls'];
