/**
 * The password reset routes against the real lookup service, on a gateway with no revocation feed:
 * sessions that end here end through the route's own forgetUser (the event path is the e2e's), and
 * the mail is read from the gateway's development folder.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { eventually, expectError, suiteFixture } from '@tix/kit/testing';
import { request, type JsonResponse } from '../support/test-gateway.js';
import { startRealServices } from '../support/real-services.js';

const PASSWORD = 'old passphrase for reset';

describe('password reset routes (gateway + real lookup)', function () {
  this.timeout(60_000);
  let mailDir: string;

  const fleet = suiteFixture(async () => {
    mailDir = await mkdtemp(path.join(os.tmpdir(), 'tix-reset-routes-'));
    return startRealServices({
      label: 'gateway_reset',
      gateway: {
        mail: { smtpUrl: undefined, from: 'Tix <no-reply@tix.test>', dir: mailDir },
        appUrl: 'https://app.tix.test',
      },
    });
  });
  after(async () => {
    await rm(mailDir, { recursive: true, force: true });
  });

  async function anonymous(): Promise<Record<string, string>> {
    const start = await request(`${fleet.gateway.appUrl}/api/csrf-token`);
    return {
      cookie: start.headers.get('set-cookie')!.split(';')[0]!,
      'x-csrf-token': start.body.data.token as string,
      'content-type': 'application/json',
    };
  }

  const post = (pathName: string, headers: Record<string, string>, body: unknown): Promise<JsonResponse> =>
    request(`${fleet.gateway.appUrl}/api${pathName}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });

  async function signIn(email: string, password: string): Promise<Record<string, string>> {
    const login = await post('/auth/login', await anonymous(), { email, password });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    return {
      cookie: login.headers.get('set-cookie')!.split(';')[0]!,
      'x-csrf-token': login.body.data.csrf_token as string,
      'content-type': 'application/json',
    };
  }

  async function tokenMailedTo(email: string): Promise<string> {
    const text = await eventually(async () => {
      for (const file of await readdir(mailDir)) {
        const raw = (await readFile(path.join(mailDir, file), 'utf8'))
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        if (raw.includes(`To: ${email}`)) return raw;
      }
      return undefined;
    }, 10_000);
    return /https:\/\/app\.tix\.test\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(text)![1]!;
  }

  it('ends every session of the user on this gateway at once, without waiting for the event', async () => {
    const user = await fleet.admin.CreateUser({
      name: 'Rita',
      email: 'rita@example.com',
      role: 'agent',
      password: PASSWORD,
    });
    const sessions = [await signIn(user.email, PASSWORD), await signIn(user.email, PASSWORD)];
    const forgot = await post('/auth/forgot-password', await anonymous(), { email: 'RITA@example.com ' });
    expect(forgot.status).to.equal(202);
    const token = await tokenMailedTo(user.email);
    const reset = await post('/auth/reset-password', await anonymous(), {
      token,
      new_password: 'new passphrase for reset',
    });
    expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
    for (const headers of sessions) {
      const me = await request(`${fleet.gateway.appUrl}/api/auth/me`, { headers });
      expect(me.status).to.equal(401);
    }
    await signIn(user.email, 'new passphrase for reset');
  });

  it('answers 422 in the envelope for a bad token, a short password, missing fields and a body that is not an object', async () => {
    const headers = await anonymous();
    const refused = await post('/auth/reset-password', headers, { token: 'nope', new_password: 'short' });
    expectError(refused, 422, 'Validation failed', {
      token: ['Reset link is invalid or has expired'],
      new_password: ['Password must be at least 8 characters'],
    });
    const missing = await post('/auth/reset-password', headers, {});
    expect(missing.status).to.equal(422);
    expect(missing.body.error.validation_errors).to.deep.equal({
      token: ['Token is required'],
      new_password: ['New password is required'],
    });
    expect((await post('/auth/forgot-password', headers, {})).body.error.validation_errors).to.deep.equal({
      email: ['Email is required'],
    });
    const notAnObject = await post('/auth/forgot-password', headers, [1]);
    expect(notAnObject.status).to.equal(422);
    expect(notAnObject.body.error.validation_errors).to.deep.equal({
      body: ['Request body must be a JSON object'],
    });
  });
});
