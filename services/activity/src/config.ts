/** The activity service's configuration, from the environment, validated once at start. */
import { env, serviceConfig } from '@tix/kit';

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export const loadConfig = serviceConfig('activity', {
  databasePoolSize: 10,
  peers: { lookup: 'the activity service needs the lookup service (the names of who made each change)' },
  variables: {
    /** Days activity entries and streamed events are kept; older ones are swept. */
    ACTIVITY_RETENTION_DAYS: env.positiveInt(90),
    /** Unacknowledged broker messages the consumer holds at once. */
    ACTIVITY_CONSUMER_PREFETCH: env.positiveInt(32),
  },
  read: (values) => ({
    retentionDays: values.ACTIVITY_RETENTION_DAYS,
    prefetch: values.ACTIVITY_CONSUMER_PREFETCH,
  }),
});

export type ActivityConfig = ReturnType<typeof loadConfig>;
