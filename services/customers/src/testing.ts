/**
 * A real customer service for tests: a fresh migrated database (the kit's startTestService) and
 * the gRPC API.
 *
 *   const customers = await startTestCustomerServer();
 *   const client = createServiceClient('customers', customers.address);
 *   ...
 *   await customers.stop();
 */
import type { Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import { customersService } from './server.js';

export { CUSTOMERS_MIGRATIONS_DIR } from './server.js';

export interface TestCustomerServerOptions {
  /** An existing database (kept on stop); default a fresh one, dropped on stop. */
  databaseUrl?: string;
  label?: string;
  logger?: Logger;
  /** When given, the outbox relay publishes customer.merged to this broker (e.g. createTestVhost(...).url). */
  amqpUrl?: string;
}

export type TestCustomerServer = Awaited<ReturnType<typeof startTestCustomerServer>>;

export function startTestCustomerServer(options: TestCustomerServerOptions = {}) {
  return startTestService(customersService(), {
    label: options.label,
    databaseUrl: options.databaseUrl,
    logger: options.logger,
    ...(options.amqpUrl === undefined ? {} : { amqpUrl: options.amqpUrl }),
  });
}
