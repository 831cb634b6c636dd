/**
 * The subscription API over gRPC against a fresh database: create (secret generated or given,
 * returned only then, sealed at rest), list (the caller's, in the project, never the secret),
 * delete (404 for anyone else's), and every validation error as a 422 naming its field, in
 * development and in production mode (the SSRF policy at creation).
 */
import { expect } from 'chai';
import pg from 'pg';
import { AppError, createServiceClient, type ServiceClient } from '@tix/kit';
import { startTestWebhookServer, type TestWebhookServer } from '../../src/testing.js';
import type { Resolver } from '../../src/delivery/target-policy.js';
import { asUser } from './support.js';

const PROJECT = 3;
const ALICE = asUser(21);
const BOB = asUser(22);
const KEY = Buffer.alloc(32, 9);

async function refusal(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => expect.fail('expected the call to be refused'),
    (caught: unknown) => caught,
  );
  expect(error).to.be.instanceOf(AppError);
  return error as AppError;
}

describe('webhook subscriptions API (development mode)', function () {
  this.timeout(30_000);
  let service: TestWebhookServer;
  let client: ServiceClient<'webhooks'>;
  let sql: pg.Pool;

  before(async () => {
    service = await startTestWebhookServer({ secretKey: KEY });
    client = createServiceClient('webhooks', service.address, { deadlineMs: 10_000 });
    sql = new pg.Pool({ connectionString: service.databaseUrl, max: 1 });
  });
  after(async () => {
    await sql?.end();
    client?.close();
    await service?.stop();
  });

  it('creates with a generated whsec_ secret, returned only by create and sealed at rest', async () => {
    const created = await client.CreateWebhook(
      { project_id: PROJECT, url: 'http://127.0.0.1:9/hook', events: ['ticket.created', 'ticket.created'] },
      ALICE,
    );
    expect(created).to.deep.include({
      url: 'http://127.0.0.1:9/hook',
      events: ['ticket.created'],
      is_active: true,
      project_id: PROJECT,
    });
    expect(created.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret!.slice(6), 'base64')).to.have.length(32);
    expect(Date.parse(created.created_at)).to.be.closeTo(Date.now(), 60_000);
    const { rows } = await sql.query<{ secret: string }>('SELECT secret FROM webhooks WHERE id = $1', [
      created.id,
    ]);
    expect(rows[0]!.secret).to.match(/^enc:v1:/);
    expect(rows[0]!.secret).to.not.include(created.secret!.slice(6));

    const list = await client.ListWebhooks({ project_id: PROJECT }, ALICE);
    expect(list.count).to.equal(1);
    // Decoded messages name a set proto3 optional in a virtual `_secret` field; the list has neither.
    const { secret: _secret, _secret: _virtual, ...shown } = created as typeof created & { _secret?: string };
    expect(list.webhooks[0]).to.deep.equal(shown);
    expect(list.webhooks[0]).to.not.have.property('secret');
  });

  it('keeps a given secret as given', async () => {
    const secret = 'my-own-secret-0123456789';
    const created = await client.CreateWebhook(
      { project_id: PROJECT, url: 'http://example.test/in', events: ['comment.created'], secret },
      ALICE,
    );
    expect(created.secret).to.equal(secret);
  });

  it("lists only the caller's subscriptions of the project", async () => {
    const bobs = await client.CreateWebhook(
      { project_id: PROJECT, url: 'http://example.test/bob', events: ['ticket.updated'] },
      BOB,
    );
    await client.CreateWebhook(
      { project_id: PROJECT + 1, url: 'http://example.test/bob2', events: ['ticket.updated'] },
      BOB,
    );
    const list = await client.ListWebhooks({ project_id: PROJECT }, BOB);
    expect(list.webhooks.map((hook) => hook.id)).to.deep.equal([bobs.id]);
    expect(list.count).to.equal(1);
    const alices = await client.ListWebhooks({ project_id: PROJECT }, ALICE);
    expect(alices.webhooks.map((hook) => hook.id)).to.not.include(bobs.id);
  });

  it("deletes the caller's subscription once; anyone else's, another project's or a missing one is 404", async () => {
    const hook = await client.CreateWebhook(
      { project_id: PROJECT, url: 'http://example.test/del', events: ['ticket.updated'] },
      ALICE,
    );
    expect(await refusal(client.DeleteWebhook({ project_id: PROJECT, id: hook.id }, BOB))).to.include({
      kind: 'not_found',
      message: 'Webhook not found',
    });
    expect(await refusal(client.DeleteWebhook({ project_id: PROJECT + 1, id: hook.id }, ALICE))).to.include({
      kind: 'not_found',
    });
    expect(await client.DeleteWebhook({ project_id: PROJECT, id: hook.id }, ALICE)).to.deep.equal({
      message: 'Webhook deleted',
    });
    expect(await refusal(client.DeleteWebhook({ project_id: PROJECT, id: hook.id }, ALICE))).to.include({
      kind: 'not_found',
    });
    const list = await client.ListWebhooks({ project_id: PROJECT }, ALICE);
    expect(list.webhooks.map((listed) => listed.id)).to.not.include(hook.id);
    const { rows } = await sql.query('SELECT secret, is_active FROM webhooks WHERE id = $1', [hook.id]);
    expect(rows[0]).to.deep.equal({ secret: 'deleted:', is_active: false });
  });

  it("lets an admin list every owner's subscriptions (on request) and manage any of the project", async () => {
    const admin = { principal: { ...asUser(23).principal!, role: 'admin' as const } };
    const alices = await client.CreateWebhook(
      { project_id: PROJECT, url: 'http://example.test/alice-admin', events: ['ticket.updated'] },
      ALICE,
    );
    const own = await client.ListWebhooks({ project_id: PROJECT }, admin);
    expect(own.webhooks.map((hook) => hook.id)).to.not.include(alices.id);
    const every = await client.ListWebhooks({ project_id: PROJECT, all_owners: true }, admin);
    expect(every.webhooks.map((hook) => hook.id)).to.include(alices.id);
    expect(await refusal(client.ListWebhooks({ project_id: PROJECT, all_owners: true }, BOB))).to.include({
      kind: 'permission_denied',
      message: "Only an admin can list every owner's webhooks",
    });
    const page = await client.ListDeliveries({ project_id: PROJECT, webhook_id: alices.id }, admin);
    expect(page.deliveries).to.deep.equal([]);
    expect(await refusal(client.DeleteWebhook({ project_id: PROJECT + 1, id: alices.id }, admin))).to.include(
      {
        kind: 'not_found',
      },
    );
    expect(await client.DeleteWebhook({ project_id: PROJECT, id: alices.id }, admin)).to.deep.equal({
      message: 'Webhook deleted',
    });
  });

  it('answers every invalid field at once with a 422 naming it', async () => {
    const error = await refusal(
      client.CreateWebhook(
        {
          project_id: PROJECT,
          url: 'ftp://example.test/x',
          events: ['ticket.created', 'comment.deleted', 'nope'],
          secret: 'short',
        },
        ALICE,
      ),
    );
    expect(error.kind).to.equal('validation_failed');
    expect(error.validationErrors).to.deep.equal({
      url: ['URL must be an absolute http or https URL'],
      events: [
        'Unknown event types: "comment.deleted", "nope". Allowed: ticket.created, ticket.updated, ' +
          'ticket.status_changed, ticket.assigned, comment.created, ticket.deleted, ticket.merged, ticket.restored',
      ],
      secret: ['Secret must be 16 to 256 printable ASCII characters without spaces'],
    });
    const empty = await refusal(
      client.CreateWebhook({ project_id: PROJECT, url: 'http://example.test/', events: [] }, ALICE),
    );
    expect(empty.validationErrors).to.deep.equal({ events: ['Events must name at least one event type'] });
    for (const url of [
      '',
      'not a url',
      '/relative',
      'http://user:pw@example.test/',
      `http://x.test/${'a'.repeat(2050)}`,
    ]) {
      const refused = await refusal(
        client.CreateWebhook({ project_id: PROJECT, url, events: ['ticket.created'] }, ALICE),
      );
      expect(refused.kind, url).to.equal('validation_failed');
      expect(Object.keys(refused.validationErrors ?? {}), url).to.deep.equal(['url']);
    }
  });

  it('hostile input is a 422, never a 500', async () => {
    const inputs = [
      { url: 'http://example.test/\u0000', events: ['ticket.created'] },
      { url: 'http://example.test/a\tb', events: ['ticket.created'] },
      { url: 'http://example.test/', events: ['ticket.created\u0000', 'x'.repeat(10_000)] },
      { url: 'http://example.test/', events: ['ticket.created'], secret: `${'s'.repeat(20)}\u0000` },
    ];
    for (const input of inputs) {
      const error = await refusal(client.CreateWebhook({ project_id: PROJECT, ...input }, ALICE));
      expect(error.kind, JSON.stringify(input).slice(0, 80)).to.equal('validation_failed');
    }
    const bad = await refusal(
      client.RedeliverDelivery({ project_id: PROJECT, webhook_id: 1, delivery_id: "x' OR 1=1" }, ALICE),
    );
    expect(bad).to.include({ kind: 'bad_request', message: 'Invalid delivery id' });
  });

  it('a project holds at most 100 live subscriptions (422 on project_id)', async () => {
    const project = PROJECT + 50;
    const made: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const hook = await client.CreateWebhook(
        { project_id: project, url: `http://example.test/${i}`, events: ['ticket.created'] },
        i % 2 ? ALICE : BOB,
      );
      made.push(hook.id);
    }
    const error = await refusal(
      client.CreateWebhook(
        { project_id: project, url: 'http://example.test/x', events: ['ticket.created'] },
        ALICE,
      ),
    );
    expect(error.validationErrors).to.deep.equal({ project_id: ['A project can have at most 100 webhooks'] });
    await client.DeleteWebhook({ project_id: project, id: made[1]! }, ALICE);
    await client.CreateWebhook(
      { project_id: project, url: 'http://example.test/x', events: ['ticket.created'] },
      ALICE,
    );
  });

  it('refuses a call without a principal (401)', async () => {
    const error = await refusal(client.ListWebhooks({ project_id: PROJECT }, {}));
    expect(error.kind).to.equal('unauthenticated');
  });
});

describe('webhook subscriptions API (production mode: the SSRF policy at creation)', function () {
  this.timeout(30_000);
  let service: TestWebhookServer;
  let client: ServiceClient<'webhooks'>;
  const names: Record<string, string[]> = {
    'public.example.test': ['93.184.215.14'],
    'private.example.test': ['10.1.2.3'],
    'mixed.example.test': ['93.184.215.14', '192.168.1.1'],
    'metadata.example.test': ['169.254.169.254'],
    'v6private.example.test': ['fd00:ec2::254'],
  };
  const resolver: Resolver = (hostname) => {
    const found = names[hostname];
    if (!found) return Promise.reject(new Error(`getaddrinfo ENOTFOUND ${hostname}`));
    return Promise.resolve(found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };

  before(async () => {
    service = await startTestWebhookServer({ targetMode: 'production', resolver, secretKey: KEY });
    client = createServiceClient('webhooks', service.address, { deadlineMs: 10_000 });
  });
  after(async () => {
    client?.close();
    await service?.stop();
  });

  const create = (url: string) =>
    client.CreateWebhook({ project_id: PROJECT, url, events: ['ticket.created'] }, ALICE);

  const refused: [string, string][] = [
    ['http://public.example.test/hook', 'URL must use https'],
    [
      'https://127.0.0.1/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://10.0.0.1/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://169.254.169.254/latest/meta-data',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    ['https://[::1]/hook', 'URL must not point to a private, loopback, link-local or other internal address'],
    [
      'https://[::ffff:127.0.0.1]/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://2130706433/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://0x7f.1/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://0.0.0.0/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://100.64.0.1/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://[fd00:ec2::254]/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://private.example.test/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://mixed.example.test/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://metadata.example.test/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    [
      'https://v6private.example.test/hook',
      'URL must not point to a private, loopback, link-local or other internal address',
    ],
    ['https://unknown.example.test/hook', 'URL host cannot be resolved'],
    ['https://user:pw@public.example.test/hook', 'URL must not contain a user name or password'],
  ];
  for (const [url, message] of refused) {
    it(`refuses ${url} with 422`, async () => {
      const error = await refusal(create(url));
      expect(error.kind).to.equal('validation_failed');
      expect(error.validationErrors).to.deep.equal({ url: [message] });
    });
  }

  it('refuses localhost through the system resolver too', async () => {
    const system = await startTestWebhookServer({ targetMode: 'production', secretKey: KEY });
    const systemClient = createServiceClient('webhooks', system.address, { deadlineMs: 10_000 });
    try {
      const error = await refusal(
        systemClient.CreateWebhook(
          { project_id: PROJECT, url: 'https://localhost/hook', events: ['ticket.created'] },
          ALICE,
        ),
      );
      expect(error.validationErrors).to.deep.equal({
        url: ['URL must not point to a private, loopback, link-local or other internal address'],
      });
    } finally {
      systemClient.close();
      await system.stop();
    }
  });

  it('accepts an https URL whose host resolves only to public addresses', async () => {
    const created = await create('https://public.example.test/hook');
    expect(created.url).to.equal('https://public.example.test/hook');
  });
});
