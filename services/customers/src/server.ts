/**
 * The customer service: customers (requesters and CCs), their addresses and organizations, served
 * over gRPC. main.ts runs it; tests start the same composition (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTixService, grpcService } from '@tix/kit';
import { loadConfig } from './config.js';
import { customerHandlers } from './customer-handlers.js';

export const CUSTOMERS_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

export const customersService = () =>
  defineTixService({
    name: 'customers',
    config: loadConfig,
    migrations: CUSTOMERS_MIGRATIONS_DIR,
    peers: [],
    // customer.merged (customers.ts, mergeCustomers), for the ticket service.
    outbox: true,
    register: ({ pool }) => ({ grpc: grpcService('customers', customerHandlers({ pool })) }),
  });
