/** The lookup service's configuration, from the environment, validated once at start. */
import { serviceConfig } from '@tix/kit';

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export const loadConfig = serviceConfig('lookup', {
  peers: {
    tickets:
      'the lookup service needs the ticket service (ticket counts before a status or field_schema change; demo tickets)',
    comments: 'the lookup service needs the comment service (demo comments)',
  },
});

export type LookupConfig = ReturnType<typeof loadConfig>;
