/**
 * Autonomy's settings through the fleet, as an admin's console uses them: the default guardrails
 * (shadow mode), an update with the version read, a stale version (409), invalid values named by
 * dotted path (422), the kill switch for one project and for all (idempotent), suggest-reply
 * availability reporting the kill, clear-kill and a second clear (409); agents are refused every
 * route (403). The global switch is cleared again whatever happens, since the fleet is shared.
 */
import { expect } from 'chai';
import { createProject, createUser, type ProjectFixture } from '../support/fixtures.js';
import type { ApiResponse } from '../support/http.js';
import { signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'autonomy e2e passphrase';

describe('autonomy settings and the kill switch through the fleet', function () {
  this.timeout(120_000);
  let project: ProjectFixture;
  let other: ProjectFixture;
  let admin: BrowserSession;
  let agent: BrowserSession;

  const data = (response: ApiResponse) => {
    expect(response.status, response.text).to.equal(200);
    return response.body.data;
  };
  const refusal = (response: ApiResponse, status: number) => {
    expect(response.status, response.text).to.equal(status);
    expect(response.body.ok).to.equal(false);
    return response.body.error as {
      code: number;
      message: string;
      validation_errors?: Record<string, string[]>;
    };
  };

  before(async () => {
    project = await createProject();
    other = await createProject();
    admin = await signIn((await createUser('admin', { password: PASSWORD })).email, PASSWORD);
    agent = await signIn((await createUser('agent', { password: PASSWORD })).email, PASSWORD);
  });

  after(async () => {
    // Never leave the shared fleet's autonomy stopped.
    await admin?.call('POST', '/ai/autonomy/clear-kill', { reason: 'autonomy e2e cleanup' });
  });

  it('refuses agents on every route', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', `/ai/autonomy?project=${project.slug}`],
      ['PUT', `/ai/autonomy/guardrails?project=${project.slug}`, { limits: { max_actions_per_hour: 5 } }],
      ['POST', `/ai/autonomy/kill?project=${project.slug}`, { reason: 'stop' }],
      ['POST', '/ai/autonomy/kill', { reason: 'stop' }],
      ['POST', `/ai/autonomy/clear-kill?project=${project.slug}`, { reason: 'go' }],
      ['POST', '/ai/autonomy/clear-kill', { reason: 'go' }],
    ];
    for (const [method, path, body] of calls) {
      const error = refusal(await agent.call(method, path, body), 403);
      expect(error.message, `${method} ${path}`).to.equal(
        'Your role (agent) does not allow this; it needs admin or higher',
      );
    }
  });

  it('reads the defaults, updates with the version read, refuses a stale version and invalid values', async () => {
    const { autonomy } = data(await admin.call('GET', `/ai/autonomy?project=${project.slug}`));
    expect(autonomy.project_id).to.equal(project.id);
    expect(autonomy.status).to.deep.equal({ effective: 'disabled', paused_actions: [] });
    expect(autonomy.kill_switch.active).to.equal(false);
    const { guardrails } = autonomy;
    expect(guardrails).to.deep.include({ version: 1, updated_by: null });
    expect(
      Object.fromEntries(
        Object.entries(guardrails.actions as Record<string, { mode: string; threshold: number }>).map(
          ([type, action]) => [type, [action.mode, action.threshold]],
        ),
      ),
    ).to.deep.equal({
      set_priority: ['off', 0.85],
      assign: ['off', 0.9],
      add_tags: ['off', 0.8],
      close_duplicate: ['off', 0.95],
      post_internal_note: ['off', 0.6],
      send_reply: ['off', 0.97],
    });
    expect(guardrails.scope).to.deep.equal({
      ticket_type_ids: null,
      statuses: null,
      exclude_tags: [],
      exclude_priorities: ['critical'],
    });

    const updated = data(
      await admin.call('PUT', `/ai/autonomy/guardrails?project=${project.slug}`, {
        version: 1,
        actions: { set_priority: { mode: 'suggest' } },
        scope: { statuses: [project.statuses[0]!.slug] },
      }),
    );
    expect(updated.warnings).to.deep.equal([]);
    expect(updated.autonomy.status.effective).to.equal('active');
    expect(updated.autonomy.guardrails).to.deep.include({
      version: 2,
      updated_by: { id: admin.user.id, name: admin.user.name },
    });
    expect(updated.autonomy.guardrails.actions.set_priority).to.deep.include({
      mode: 'suggest',
      threshold: 0.85,
    });
    expect(updated.autonomy.guardrails.scope.statuses).to.deep.equal([project.statuses[0]!.slug]);

    const stale = refusal(
      await admin.call('PUT', `/ai/autonomy/guardrails?project=${project.slug}`, {
        version: 1,
        limits: { max_actions_per_hour: 5 },
      }),
      409,
    );
    expect(stale).to.deep.equal({ code: 409, message: 'Guardrails were modified by another user' });

    const invalid = refusal(
      await admin.call('PUT', `/ai/autonomy/guardrails?project=${project.slug}`, {
        version: 2,
        actions: { send_reply: { threshold: 0.85 }, add_tags: { mode: 'sometimes' } },
        scope: { statuses: ['done'] },
        review: { sample_rate: 1.5 },
      }),
      422,
    );
    expect(invalid.validation_errors).to.deep.equal({
      'actions.add_tags.mode': ['must be one of off, suggest, auto'],
      'actions.send_reply.threshold': ['must be between 0.9 and 0.99'],
      'scope.statuses': ['unknown status: done'],
      'review.sample_rate': ['must be between 0 and 1'],
    });
    // Nothing was written by the refused updates.
    const after = data(await admin.call('GET', `/ai/autonomy?project=${project.slug}`)).autonomy;
    expect(after.guardrails.version).to.equal(2);
  });

  it("kills one project idempotently, shows it in that project's availability, and clears it once", async () => {
    const killed = data(
      await admin.call('POST', `/ai/autonomy/kill?project=${project.slug}`, { reason: 'Odd tags' }),
    );
    expect(killed).to.deep.include({ cancelled_actions: 0, already_active: false });
    expect(killed.autonomy.kill_switch).to.deep.include({
      active: true,
      scope: 'project',
      reason: 'Odd tags',
    });
    expect(killed.autonomy.status.effective).to.equal('killed');
    const again = data(
      await admin.call('POST', `/ai/autonomy/kill?project=${project.slug}`, { reason: 'Twice' }),
    );
    expect(again.already_active).to.equal(true);
    expect(again.autonomy.kill_switch.reason).to.equal('Odd tags');

    const availability = data(
      await agent.call('GET', `/ai/suggest-reply/availability?project=${project.slug}`),
    );
    expect(availability.autonomy).to.equal('killed');
    const elsewhere = data(await agent.call('GET', `/ai/suggest-reply/availability?project=${other.slug}`));
    expect(elsewhere.autonomy).to.equal('active');

    const cleared = data(
      await admin.call('POST', `/ai/autonomy/clear-kill?project=${project.slug}`, { reason: 'Checked' }),
    );
    expect(cleared.autonomy.kill_switch).to.deep.include({
      active: false,
      cleared_by: { id: admin.user.id, name: admin.user.name },
    });
    const twice = refusal(
      await admin.call('POST', `/ai/autonomy/clear-kill?project=${project.slug}`, { reason: 'Checked' }),
      409,
    );
    expect(twice).to.deep.equal({ code: 409, message: 'Kill switch is not active' });
  });

  it('kills every project without a project context, and clears it', async () => {
    const reasonless = refusal(await admin.call('POST', '/ai/autonomy/kill', { reason: '' }), 422);
    expect(Object.keys(reasonless.validation_errors ?? {})).to.deep.equal(['reason']);
    const global = data(await admin.call('POST', '/ai/autonomy/kill', { reason: 'Stop everything' }));
    expect(global.autonomy).to.deep.include({ project_id: null, guardrails: null, stats_24h: null });
    expect(global.autonomy.kill_switch).to.deep.include({ active: true, scope: 'global' });
    expect(data(await admin.call('POST', '/ai/autonomy/kill', { reason: 'Again' })).already_active).to.equal(
      true,
    );
    for (const slug of [project.slug, other.slug]) {
      const { autonomy } = data(await admin.call('GET', `/ai/autonomy?project=${slug}`));
      expect([autonomy.status.effective, autonomy.kill_switch.scope]).to.deep.equal(['killed', 'global']);
      const availability = data(await agent.call('GET', `/ai/suggest-reply/availability?project=${slug}`));
      expect(availability.autonomy).to.equal('killed');
    }
    const cleared = data(await admin.call('POST', '/ai/autonomy/clear-kill', { reason: 'Resume' }));
    expect(cleared.autonomy.kill_switch.active).to.equal(false);
    expect(
      refusal(await admin.call('POST', '/ai/autonomy/clear-kill', { reason: 'Resume' }), 409).message,
    ).to.equal('Kill switch is not active');
  });
});
