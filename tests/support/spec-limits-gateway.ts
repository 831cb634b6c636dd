/**
 * A second gateway process (gateway/src/main.ts) in front of the shared fleet's services, at the
 * spec's limits: the fleet's own gateway runs with raised limits (fleet.ts), so suites that check a
 * spec limit start one of these. Its whole environment is the one built here (inheritEnv: false), so
 * no raised limit leaks in; its limits live in Redis under a prefix of its own, whose keys expire
 * with their windows.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { eventually, freePort, startMainProcess } from '@tix/kit/testing';
import { REPO_ROOT } from '@tix/local/fleet-layout';
import { fleet } from './fleet.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

export interface SpecLimitsGateway {
  apiUrl: string;
  appUrl: string;
  stop(): Promise<void>;
}

/** Starts the gateway and resolves once its /readyz answers 200. */
export async function startSpecLimitsGateway(): Promise<SpecLimitsGateway> {
  const env: NodeJS.ProcessEnv = {
    ...fleet().env,
    GATEWAY_API_PORT: String(await freePort()),
    GATEWAY_APP_PORT: String(await freePort()),
    METRICS_PORT: '0',
    REDIS_URL,
    LIMITS_REDIS_PREFIX: `tix:e2e:${randomBytes(4).toString('hex')}:`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
  };
  for (const name of Object.keys(env)) if (/^RATE_LIMIT|^QUOTA_|^IDEMPOTENCY_/.test(name)) delete env[name];
  const apiUrl = `http://127.0.0.1:${env.GATEWAY_API_PORT}`;
  const gateway = startMainProcess(path.join(REPO_ROOT, 'gateway'), env, { inheritEnv: false });
  await eventually(
    () =>
      fetch(`${apiUrl}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      ),
    20_000,
    100,
  );
  return {
    apiUrl,
    appUrl: `http://127.0.0.1:${env.GATEWAY_APP_PORT}`,
    stop: async () => {
      await gateway.stop();
    },
  };
}
