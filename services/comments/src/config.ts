/** The comment service's configuration, from the environment, validated once at start. */
import { serviceConfig } from '@tix/kit';

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export const loadConfig = serviceConfig('comments', {
  peers: {
    tickets: 'the comment service needs the ticket service (every comment hangs off a live ticket)',
  },
});

export type CommentsConfig = ReturnType<typeof loadConfig>;
