/**
 * A real SLA service for tests: a fresh migrated database (the kit's startTestService), the gRPC
 * API, and with a broker the clock consumer; the timer worker always runs. It needs a lookup service.
 *
 *   const sla = await startTestSlaServer({ lookupAddress: lookup.address, amqpUrl: vhost.url });
 *   const client = createServiceClient('sla', sla.address);
 *   ...
 *   await sla.stop();
 */
import type { Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import { slaService, type SlaServiceOptions } from './server.js';

export { SLA_MIGRATIONS_DIR } from './server.js';

export interface TestSlaServerOptions extends SlaServiceOptions {
  /** "host:port" of the lookup service. */
  lookupAddress: string;
  /** An existing database (kept on stop: a restart); default a fresh one, dropped on stop. */
  databaseUrl?: string;
  /** The broker to consume ticket and comment events from and publish sla.* events to. */
  amqpUrl?: string;
  label?: string;
  logger?: Logger;
}

export type TestSlaServer = Awaited<ReturnType<typeof startTestSlaServer>>;

export function startTestSlaServer(options: TestSlaServerOptions) {
  const { lookupAddress, databaseUrl, amqpUrl, label, logger, ...service } = options;
  return startTestService(slaService(service), {
    label,
    databaseUrl,
    logger,
    amqpUrl,
    config: { peers: { lookup: lookupAddress } },
  });
}
