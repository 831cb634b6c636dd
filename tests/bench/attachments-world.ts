/**
 * The world of `pnpm bench --only uploads` (attachments-memory.ts): the fleet on free ports with fresh
 * databases, vhost and S3 folder, a project with a ticket and a key, the PIDs of the two measured
 * processes (found by their listening ports), and the client side of one upload and one download.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger, createServiceClient, dropDatabase, type LogLevel } from '@tix/kit';
import { createTestVhost, freePort } from '@tix/kit/testing';
import { startFleet } from '@tix/local/launcher';
import { serviceDatabaseUrls } from '@tix/local/migrate';
import { SERVICE_NAMES, serviceDatabaseVariable, type ServiceName } from '@tix/protos';
import { idleRss, pidListeningOn } from './attachments-rss.js';
import type { Teardown } from './environment.js';

/** The fleet with a project, a ticket and a key (tickets:read/write) to upload with. */
export async function startWorld(teardown: Teardown, logLevel: LogLevel) {
  const vhost = await createTestVhost('bench_uploads');
  teardown.add('delete the RabbitMQ vhost', () => vhost.drop());
  const s3Dir = await mkdtemp(path.join(os.tmpdir(), 'tix-bench-uploads-s3-'));
  teardown.add('remove the S3 data folder', () => rm(s3Dir, { recursive: true, force: true }));
  const servicePorts: Partial<Record<ServiceName, number>> = {};
  for (const name of SERVICE_NAMES) servicePorts[name] = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, AMQP_URL: vhost.url, LOG_LEVEL: logLevel };
  for (const name of SERVICE_NAMES) delete env[serviceDatabaseVariable(name)];
  delete env.S3_ENDPOINT;
  const databasePrefix = `bench_up_${randomBytes(3).toString('hex')}_`;
  const databaseUrls = Object.values(serviceDatabaseUrls(env, databasePrefix));
  teardown.add('drop the fleet databases', async () => {
    for (const url of databaseUrls) await dropDatabase(url);
  });
  const apiPort = await freePort();
  const fleet = await startFleet({
    env,
    apiPort,
    appPort: await freePort(),
    servicePorts,
    s3Port: await freePort(),
    s3DataDir: s3Dir,
    databasePrefix,
    logger: createLogger({ service: 'bench', level: logLevel }),
    logOutput: process.stderr,
  });
  teardown.add('stop the fleet', () => fleet.stop());
  if (!fleet.services.includes('attachments')) throw new Error('the attachment service is not built');

  const lookup = createServiceClient('lookup', `127.0.0.1:${servicePorts.lookup}`, { deadlineMs: 10_000 });
  teardown.add('close the lookup client', () => Promise.resolve(lookup.close()));
  const suffix = randomBytes(3).toString('hex');
  const project = await lookup.CreateProject({
    name: `Uploads ${suffix}`,
    slug: `uploads-${suffix}`,
    prefix: 'UPL',
    description: 'pnpm bench --only uploads',
    statuses: [],
  });
  const type = await lookup.CreateTicketType({
    project_id: project.id,
    name: 'Task',
    slug: 'task',
    description: '',
    is_default: true,
    field_schema_json: '',
  });
  const user = await lookup.CreateUser({
    name: 'Bench',
    email: `uploads-${suffix}@example.com`,
    role: 'agent',
  });
  const key = await lookup.CreateApiKey({
    user_id: user.id,
    scopes: ['tickets:read', 'tickets:write'],
    project_id: project.id,
    name: 'bench uploads',
  });
  const created = await fetch(`${fleet.apiUrl}/v1/tickets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ticket_type_id: type.id, title: 'Bench uploads' }),
  });
  if (created.status !== 201) throw new Error(`creating the ticket answered ${created.status}`);
  const ticketId = ((await created.json()) as { data: { ticket: { id: number } } }).data.ticket.id;
  return {
    apiUrl: fleet.apiUrl,
    apiKey: key.key,
    ticketId,
    pids: {
      gateway: await pidListeningOn(apiPort),
      attachments: await pidListeningOn(servicePorts.attachments!),
    },
  };
}

export type World = Awaited<ReturnType<typeof startWorld>>;

/** The idle RSS of both processes (median over a second each). */
export async function idleOf(world: World): Promise<Record<'gateway' | 'attachments', number>> {
  return { gateway: await idleRss(world.pids.gateway), attachments: await idleRss(world.pids.attachments) };
}

/** One upload through the API; resolves with the attachment id. */
export async function uploadOnce(world: World, file: Blob, name: string): Promise<number> {
  const form = new FormData();
  form.append('file', file, name);
  const response = await fetch(`${world.apiUrl}/v1/tickets/${world.ticketId}/attachments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.apiKey}` },
    body: form,
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: { attachment: { id: number } } }).data.attachment.id;
}

/** One download, read as a stream; resolves with the SHA-256 of the bytes. */
export async function downloadOnce(world: World, id: number): Promise<string> {
  const response = await fetch(`${world.apiUrl}/v1/attachments/${id}/download`, {
    headers: { authorization: `Bearer ${world.apiKey}` },
  });
  if (response.status !== 200 || !response.body) throw new Error(`download answered ${response.status}`);
  const hash = createHash('sha256');
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
  return hash.digest('hex');
}
