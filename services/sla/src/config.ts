/** The SLA service's configuration, from the environment, validated once at start. */
import { env, serviceConfig } from '@tix/kit';

export const loadConfig = serviceConfig('sla', {
  peers: {
    lookup: 'the SLA service needs the lookup service (which statuses are closed)',
  },
  variables: {
    /** Unacknowledged broker messages the clock consumer holds at once. */
    SLA_CONSUMER_PREFETCH: env.positiveInt(32),
  },
  read: (values) => ({ prefetch: values.SLA_CONSUMER_PREFETCH }),
});

export type SlaConfig = ReturnType<typeof loadConfig>;
