/** The customer service's configuration, from the environment, validated once at start. */
import { serviceConfig } from '@tix/kit';

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export const loadConfig = serviceConfig('customers', {});

export type CustomersConfig = ReturnType<typeof loadConfig>;
