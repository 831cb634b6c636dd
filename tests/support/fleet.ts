/**
 * The fleet under test: started once per run (see fleet-hooks.ts) on free ports, with fresh databases
 * and a fresh RabbitMQ virtual host, and torn down afterwards.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { dropDatabase } from '@tix/kit';
import { createTestVhost, freePort, testLogger, type TestVhost } from '@tix/kit/testing';
import { startFleet, type RunningFleet } from '@tix/local/launcher';
import { serviceDatabaseVariable, SERVICE_NAMES, type ServiceName } from '@tix/protos';
import { startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

let current:
  | {
      fleet: RunningFleet;
      vhost: TestVhost;
      s3Dir: string;
      mailDir: string;
      smtpPort: number;
      model: FakeModelServer;
    }
  | undefined;

/** The running fleet; only valid inside tests. */
export function fleet(): RunningFleet {
  if (!current) throw new Error('the fleet is not running (fleet-hooks.ts did not start it)');
  return current.fleet;
}

/** Where the fleet's gateway writes mail (it runs without SMTP_URL): one .eml file per message. */
export function fleetMailDir(): string {
  if (!current) throw new Error('the fleet is not running (fleet-hooks.ts did not start it)');
  return current.mailDir;
}

/** The model server the fleet's assistant is configured with (failing unless told otherwise). */
/** The loopback port of the fleet's inbound SMTP listener (the mail service; MAIL_SMTP_PORT). */
export function fleetSmtpPort(): number {
  if (!current) throw new Error('the fleet is not running (fleet-hooks.ts did not start it)');
  return current.smtpPort;
}

export function fleetModelServer(): FakeModelServer {
  if (!current) throw new Error('the fleet is not running (fleet-hooks.ts did not start it)');
  return current.model;
}

export async function startTestFleet(): Promise<void> {
  const vhost = await createTestVhost('e2e');
  const s3Dir = await mkdtemp(path.join(os.tmpdir(), 'tix-e2e-s3-'));
  const mailDir = await mkdtemp(path.join(os.tmpdir(), 'tix-e2e-mail-'));
  const model = await startFakeModelServer();
  // Its own SMTP port, so a run never collides with a local fleet's 2525.
  const smtpPort = await freePort();
  const servicePorts: Partial<Record<ServiceName, number>> = {};
  for (const name of SERVICE_NAMES) servicePorts[name] = await freePort();
  // Free ports for /metrics too, so a run never collides with a local fleet on the default ones.
  const metricsPorts: Partial<Record<ServiceName | 'gateway', number>> = { gateway: await freePort() };
  for (const name of SERVICE_NAMES) metricsPorts[name] = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AMQP_URL: vhost.url,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    // The suites make hundreds of calls per key, session and address within a minute: the shared
    // test fleet's gateway gets limits far above the spec's. limits.e2e.test.ts checks the spec
    // defaults on a gateway process of its own.
    RATE_LIMIT_API_KEY: '1000000/60',
    RATE_LIMIT_SESSION: '1000000/60',
    RATE_LIMIT_ANONYMOUS: '1000000/60',
    RATE_LIMIT_AUTH: '1000000/60',
    // The spec's tight route limits too, so the bad-input sweep reaches validation on every route;
    // limits.e2e and assistant.e2e check the spec's values on gateways of their own. Resetting a
    // password keeps its limit off too: the e2e and browser suites between them reset more than ten
    // from this machine's address in an hour (forgot-password keeps the spec's, which password-reset
    // e2e checks from an address of its own).
    RATE_LIMIT_ROUTES:
      '/tickets/*/status=1000000/60,/search/*=1000000/60,/search/ai=1000000/60,/ai/suggest-reply=1000000/60,' +
      '/auth/reset-password=1000000/60',
    MAIL_DIR: mailDir,
    MAIL_SMTP_PORT: String(smtpPort),
    // The assistant talks to a model server, as an operator may configure it: a fake that fails
    // unless a suite says otherwise (fake-model-server.ts), so suggestions fall back to retrieval.
    AI_PROVIDER: 'openai',
    AI_OPENAI_BASE_URL: model.baseUrl,
    AI_OPENAI_MODEL: 'fake-model',
    AI_OPENAI_TIMEOUT_MS: '1000',
  };
  delete env.SMTP_URL;
  for (const name of SERVICE_NAMES) delete env[serviceDatabaseVariable(name)];
  delete env.S3_ENDPOINT;
  const started = await startFleet({
    env,
    apiPort: await freePort(),
    appPort: await freePort(),
    servicePorts,
    metricsPorts,
    s3Port: await freePort(),
    s3DataDir: s3Dir,
    databasePrefix: `e2e_${randomBytes(3).toString('hex')}_`,
    logger: testLogger('e2e-launcher'),
    logOutput: process.env.TEST_LOG_LEVEL ? process.stderr : null,
  });
  current = { fleet: started, vhost, s3Dir, mailDir, smtpPort, model };
}

export async function stopTestFleet(): Promise<void> {
  if (!current) return;
  const { fleet: running, vhost, s3Dir, mailDir, model } = current;
  current = undefined;
  await running.stop();
  for (const name of running.services) {
    const url = running.env[serviceDatabaseVariable(name)];
    if (url) await dropDatabase(url);
  }
  await vhost.drop();
  await rm(s3Dir, { recursive: true, force: true });
  await rm(mailDir, { recursive: true, force: true });
  await model.close();
}
