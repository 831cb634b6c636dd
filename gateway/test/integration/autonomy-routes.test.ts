/**
 * The autonomy routes of the session host against the real lookup and ai services (fresh databases):
 * admins read and change guardrails and use the kill switch; every other role is refused; the error
 * envelopes of a stale version (409), invalid guardrails (422 by dotted path), a clear of nothing
 * (409) and a bad reason (422); availability reports a kill.
 */
import { expect } from 'chai';
import { expectError, suiteFixture } from '@tix/kit/testing';
import { startTestAiServer } from '@tix/ai-service/testing';
import { sendJson, signedInBrowser, type JsonResponse } from '../support/test-gateway.js';
import { createAlphaAndBeta } from '../support/lookup-seed.js';
import { startRealServices } from '../support/real-services.js';

const PASSWORD = 'autonomy routes password';

describe('autonomy routes + real lookup and ai services (fresh databases)', function () {
  this.timeout(60_000);
  let admin: Record<string, string>;
  let agent: Record<string, string>;
  let lead: Record<string, string>;
  let adminId = 0;

  const fleet = suiteFixture(() =>
    startRealServices({
      label: 'gateway_autonomy',
      seed: async (directory) => {
        await createAlphaAndBeta(directory);
        const user = (name: string, role: string) =>
          directory.CreateUser({
            name,
            email: `${name.toLowerCase()}@example.com`,
            role,
            password: PASSWORD,
          });
        adminId = (await user('Ada', 'admin')).id;
        await user('Aga', 'agent');
        await user('Lea', 'team_lead');
      },
      peers: { ai: ({ lookup }) => startTestAiServer({ lookupAddress: lookup, label: 'gateway_autonomy' }) },
    }),
  );

  const app = (
    path: string,
    headers: Record<string, string>,
    init: { method?: string; body?: unknown } = {},
  ) => sendJson(`${fleet.gateway.appUrl}/api${path}`, init.method ?? 'GET', headers, init.body);
  const put = (body: unknown, headers = admin) =>
    app('/ai/autonomy/guardrails?project=alpha', headers, { method: 'PUT', body });
  const post = (path: string, body: unknown, headers = admin) => app(path, headers, { method: 'POST', body });
  const ok = (response: JsonResponse) => {
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body.data;
  };

  before(async () => {
    admin = await signedInBrowser(fleet.gateway.appUrl, 'ada@example.com', PASSWORD);
    agent = await signedInBrowser(fleet.gateway.appUrl, 'aga@example.com', PASSWORD);
    lead = await signedInBrowser(fleet.gateway.appUrl, 'lea@example.com', PASSWORD);
  });

  it('refuses agents and team leads on every route (403), and a read without a project (400)', async () => {
    for (const who of [agent, lead]) {
      const role = who === agent ? 'agent' : 'team_lead';
      const message = `Your role (${role}) does not allow this; it needs admin or higher`;
      expectError(await app('/ai/autonomy?project=alpha', who), 403, message);
      expectError(await put({ limits: { max_actions_per_hour: 5 } }, who), 403, message);
      expectError(await post('/ai/autonomy/kill', { reason: 'stop' }, who), 403, message);
      expectError(await post('/ai/autonomy/kill?project=alpha', { reason: 'stop' }, who), 403, message);
      expectError(await post('/ai/autonomy/clear-kill', { reason: 'go' }, who), 403, message);
    }
    expectError(await app('/ai/autonomy', admin), 400, 'Project ID is required.');
  });

  it('reads the defaults (shadow mode) and merges an update with its version', async () => {
    const { autonomy } = ok(await app('/ai/autonomy?project=alpha', admin));
    expect(autonomy.status).to.deep.equal({ effective: 'disabled', paused_actions: [] });
    expect(autonomy.kill_switch).to.deep.equal({
      active: false,
      scope: null,
      reason: null,
      activated_at: null,
      activated_by: null,
      cleared_at: null,
      cleared_by: null,
    });
    expect(autonomy.guardrails).to.deep.include({ version: 1, updated_by: null });
    expect(autonomy.guardrails.actions.send_reply).to.deep.equal({ mode: 'off', threshold: 0.97 });
    expect(autonomy.stats_24h).to.deep.equal({
      predictions: 0,
      executed: 0,
      acknowledged: 0,
      reverted: 0,
      pending_review: 0,
    });

    const updated = ok(
      await put({
        version: 1,
        actions: { add_tags: { mode: 'auto', threshold: 0.85 } },
        updated_at: 'ignored',
      }),
    );
    expect(updated.warnings).to.deep.equal(['add_tags: only 0 labelled decisions; preview uses a backtest']);
    expect(updated.autonomy.status.effective).to.equal('active');
    expect(updated.autonomy.guardrails).to.deep.include({
      version: 2,
      updated_by: { id: adminId, name: 'Ada' },
    });
    expect(updated.autonomy.guardrails.actions.add_tags).to.deep.equal({
      mode: 'auto',
      threshold: 0.85,
      allowed_tags: null,
    });
  });

  it('answers 409 on a stale version and 422 by dotted path', async () => {
    expectError(
      await put({ version: 1, limits: { max_actions_per_hour: 5 } }),
      409,
      'Guardrails were modified by another user',
    );
    expectError(
      await put({
        actions: { send_reply: { threshold: 0.5 } },
        scope: { statuses: ['done'] },
        colour: 'red',
      }),
      422,
      'Validation failed',
      {
        'actions.send_reply.threshold': ['must be between 0.9 and 0.99'],
        'scope.statuses': ['unknown status: done'],
        colour: ['unknown key'],
      },
    );
    expectError(await put({ version: 'two' }), 422, 'Validation failed', {
      version: ['Version must be an integer'],
    });
    expectError(await put([1]), 422, 'Validation failed', ['body']);
  });

  it('kills a project, idempotently; availability shows it; clear-kill resumes; a second clear is 409', async () => {
    const killed = ok(await post('/ai/autonomy/kill?project=alpha', { reason: 'Wrong tags' }));
    expect(killed).to.deep.include({ cancelled_actions: 0, already_active: false });
    expect(killed.autonomy.kill_switch).to.deep.include({
      active: true,
      scope: 'project',
      reason: 'Wrong tags',
      activated_by: { id: adminId, name: 'Ada' },
    });
    expect(killed.autonomy.status.effective).to.equal('killed');
    const again = ok(await post('/ai/autonomy/kill?project=alpha', { reason: 'Again' }));
    expect(again.already_active).to.equal(true);
    expect(again.autonomy.kill_switch.reason).to.equal('Wrong tags');

    expect(ok(await app('/ai/suggest-reply/availability?project=alpha', agent)).autonomy).to.equal('killed');
    expect(ok(await app('/ai/suggest-reply/availability?project=beta', agent)).autonomy).to.equal('active');

    const cleared = ok(await post('/ai/autonomy/clear-kill?project=alpha', { reason: 'Fixed' }));
    expect(cleared.autonomy.kill_switch).to.deep.include({
      active: false,
      cleared_by: { id: adminId, name: 'Ada' },
    });
    expectError(
      await post('/ai/autonomy/clear-kill?project=alpha', { reason: 'Fixed' }),
      409,
      'Kill switch is not active',
    );
    expect(ok(await app('/ai/suggest-reply/availability?project=alpha', agent)).autonomy).to.equal('active');
  });

  it('kills globally without a project: every project shows it; the reason is required, up to 500 characters', async () => {
    expectError(await post('/ai/autonomy/kill', { reason: '  ' }), 422, 'Validation failed', {
      reason: ['Reason cannot be empty'],
    });
    expectError(await post('/ai/autonomy/kill', { reason: 'x'.repeat(501) }), 422, 'Validation failed', {
      reason: ['Reason must be at most 500 characters'],
    });
    expectError(await post('/ai/autonomy/kill', {}), 422, 'Validation failed', {
      reason: ['Reason is required'],
    });
    const global = ok(await post('/ai/autonomy/kill', { reason: 'x'.repeat(500) }));
    expect(global.autonomy).to.deep.include({ project_id: null, guardrails: null, stats_24h: null });
    expect(global.autonomy.kill_switch).to.deep.include({ active: true, scope: 'global' });
    const beta = ok(await app('/ai/autonomy?project=beta', admin)).autonomy;
    expect([beta.status.effective, beta.kill_switch.scope]).to.deep.equal(['killed', 'global']);
    expect(ok(await app('/ai/suggest-reply/availability?project=beta', agent)).autonomy).to.equal('killed');
    expect(
      ok(await post('/ai/autonomy/clear-kill', { reason: 'Resume' })).autonomy.kill_switch.active,
    ).to.equal(false);
    expectError(
      await post('/ai/autonomy/clear-kill', { reason: 'Resume' }),
      409,
      'Kill switch is not active',
    );
  });
});
