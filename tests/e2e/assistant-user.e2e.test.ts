/**
 * The assistant's system user (Tix AI, made by lookup's migration) through the fleet: listed with
 * is_system true on both hosts, never signed in, never edited and never given a key by an admin.
 */
import { expect } from 'chai';
import { expectError } from '@tix/kit/testing';
import { tix } from '../support/cli.js';
import { createKey, createUser } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'correct horse battery staple';
const UNCHANGEABLE = "Tix AI is the assistant's system user and cannot be changed";

describe("the assistant's system user (Tix AI)", function () {
  this.timeout(60_000);
  let admin: BrowserSession;
  let key: string;
  let assistantId: number;

  before(async () => {
    const user = await createUser('admin', { password: PASSWORD });
    admin = await signIn(user.email, PASSWORD);
    key = (await createKey({ scopes: 'tickets:read' })).key;
  });

  it('is listed once, with is_system true, on /v1/users and /api/users; everyone else is_system false', async () => {
    const listed = await request('/v1/users', { key });
    expect(listed.status, listed.text).to.equal(200);
    const users = listed.body.data.users as { id: number; email: string; is_system: boolean }[];
    // The system users: the assistant's and the mail service's (Tix Mail), each once.
    const system = users.filter((user) => user.is_system && user.email !== 'mail@tix.invalid');
    expect(system).to.have.length(1);
    expect(users.filter((user) => user.email === 'mail@tix.invalid')).to.have.length(1);
    expect(system[0]).to.deep.equal({
      id: system[0]!.id,
      name: 'Tix AI',
      email: 'ai@tix.invalid',
      role: 'agent',
      is_active: true,
      is_system: true,
    });
    assistantId = system[0]!.id;
    expect(users.every((user) => typeof user.is_system === 'boolean')).to.equal(true);
    const onApp = await admin.call('GET', '/users');
    expect(onApp.status, onApp.text).to.equal(200);
    expect(onApp.body.data.users).to.deep.equal(listed.body.data.users);
  });

  it('cannot sign in: the answer is the one an unknown address gets', async () => {
    const attempt = async (email: string) => {
      const start = await request('/api/csrf-token', { host: 'app' });
      return request('/api/auth/login', {
        host: 'app',
        method: 'POST',
        body: { email, password: PASSWORD },
        headers: {
          cookie: start.headers.get('set-cookie')!.split(';')[0]!,
          'x-csrf-token': start.body.data.token as string,
        },
      });
    };
    const assistant = await attempt('ai@tix.invalid');
    expectError(assistant, 401, 'Invalid email or password');
    expect(assistant.body).to.deep.equal((await attempt('nobody@tix.invalid')).body);
  });

  it('an admin can neither edit it nor give it a key (422 naming the field)', async () => {
    for (const body of [
      { is_active: false },
      { role: 'admin' },
      { name: 'Helpful Bot' },
      { password: PASSWORD },
    ]) {
      const field = Object.keys(body)[0]!;
      expectError(await admin.call('PATCH', `/users/${assistantId}`, body), 422, 'Validation failed', {
        [field]: [UNCHANGEABLE],
      });
    }
    expectError(
      await admin.call('POST', '/api-keys', { name: 'AI', scopes: ['tickets:read'], user_id: assistantId }),
      422,
      'Validation failed',
      ['user'],
    );
    const after = await request('/v1/users', { key });
    expect(
      (after.body.data.users as { id: number }[]).find((user) => user.id === assistantId),
    ).to.deep.include({ name: 'Tix AI', role: 'agent', is_active: true });
  });

  it('the CLI refuses to deactivate it or make it a key (exit 1)', async () => {
    const update = await tix(['user', 'update', '--email', 'ai@tix.invalid', '--deactivate', '--json']);
    expect(update.code, update.stderr).to.equal(1);
    expect(update.stderr).to.contain(UNCHANGEABLE);
    const keyRun = await tix([
      'key',
      'create',
      '--user',
      'ai@tix.invalid',
      '--scopes',
      'tickets:read',
      '--json',
    ]);
    expect(keyRun.code, keyRun.stderr).to.equal(1);
    expect(keyRun.stderr).to.contain("Tix AI is the assistant's system user and cannot have API keys");
  });
});
