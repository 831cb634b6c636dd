/**
 * Autonomy inside the ai service, against real lookup and PostgreSQL: the default guardrails, merged
 * and validated updates with their version and event (written in the same transaction, or not at
 * all), the kill switch (idempotent, 409 on a clear of nothing), and the gate the executor will take:
 * a kill waits for a gate holding its transaction, and no gate passes once the kill returned.
 */
import { expect } from 'chai';
import { AppError, createServiceClient, type ServiceClient } from '@tix/kit';
import { eventually } from '@tix/kit/testing';
import { ROLE_SCOPES, type Principal, type Role } from '@tix/protos';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { revertAction, type ReviewDeps } from '../../src/actions/review.js';
import { withAutonomyGate } from '../../src/autonomy/gate.js';
import { defaultGuardrails } from '../../src/autonomy/guardrails.js';
import { startTestAiServer, type TestAiServer } from '../../src/testing.js';

describe('autonomy: guardrails and the kill switch', function () {
  this.timeout(60_000);
  let lookup: TestLookupServer;
  let assistant: TestAiServer;
  let client: ServiceClient<'ai'>;
  let projectId = 0;
  let otherProjectId = 0;
  /** A project of the threshold preview's own, whose predictions no other test touches. */
  let previewProjectId = 0;
  let typeId = 0;
  let admin: Principal;
  let agent: Principal;

  const principal = (userId: number, role: Role): Principal => ({
    kind: 'session',
    user_id: userId,
    role,
    scopes: [...ROLE_SCOPES[role]],
  });
  const as = (who: Principal) => ({ principal: who });
  const guardrailsOf = (autonomy: { guardrails_json?: string }) =>
    JSON.parse(autonomy.guardrails_json ?? 'null') as Record<string, unknown> & {
      version: number;
      actions: Record<string, { mode: string; threshold: number }>;
    };
  const outbox = async () =>
    (
      await assistant.pool.query<{ event_type: string; payload: Record<string, unknown> }>(
        'SELECT event_type, payload FROM outbox_events ORDER BY seq',
      )
    ).rows;
  const update = (guardrails: unknown, version?: number, who = admin, project = projectId) =>
    client.UpdateGuardrails(
      {
        project_id: project,
        guardrails_json: JSON.stringify(guardrails),
        ...(version === undefined ? {} : { version }),
      },
      as(who),
    );
  const rejection = async (promise: Promise<unknown>): Promise<AppError> => {
    try {
      await promise;
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error('expected the call to fail');
  };

  before(async () => {
    lookup = await startTestLookupServer({ label: 'ai_autonomy' });
    const directory = createServiceClient('lookup', lookup.address, { deadlineMs: 10_000 });
    projectId = (
      await directory.CreateProject({ name: 'Support', slug: 'sup', prefix: 'SUP', description: '' })
    ).id;
    otherProjectId = (
      await directory.CreateProject({ name: 'Other', slug: 'oth', prefix: 'OTH', description: '' })
    ).id;
    previewProjectId = (
      await directory.CreateProject({ name: 'Preview', slug: 'prv', prefix: 'PRV', description: '' })
    ).id;
    typeId = (
      await directory.CreateTicketType({
        project_slug: 'sup',
        name: 'Question',
        slug: 'question',
        description: '',
        is_default: true,
        field_schema_json: '[]',
      })
    ).id;
    admin = principal(
      (await directory.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'admin' })).id,
      'admin',
    );
    agent = principal(
      (await directory.CreateUser({ name: 'Aga', email: 'aga@example.com', role: 'agent' })).id,
      'agent',
    );
    directory.close();
    assistant = await startTestAiServer({ lookupAddress: lookup.address, label: 'ai_autonomy' });
    client = createServiceClient('ai', assistant.address, { deadlineMs: 10_000 });
  });

  after(async () => {
    client?.close();
    await assistant?.stop();
    await lookup?.stop();
  });

  describe('guardrails', () => {
    it('are the defaults on first read: shadow mode, so autonomy is disabled; the last day counts predictions and actions', async () => {
      await assistant.pool.query(
        `INSERT INTO ai_predictions (project_id, ticket_id, action_type, value, confidence, rationale, sources, created_at)
         VALUES ($1, 1, 'set_priority', '"high"', 0.9, 'r', '[]', now()),
                ($1, 2, 'set_priority', '"low"', 0.9, 'r', '[]', now() - interval '2 days')`,
        [otherProjectId],
      );
      // Actions of the last day: one acknowledged, one reverted, one waiting for review, one skipped
      // (never executed); and one older than a day.
      await assistant.pool.query(
        `INSERT INTO ai_actions (project_id, ticket_id, ticket_number, action_type, status, confidence, threshold,
                                 before, after, expected, set, rationale, sources, ticket_version_before,
                                 guardrails_version, needs_review, created_at, executed_at)
         SELECT $1, n, 'OTH-' || n, 'set_priority', status, 0.9, 0.85, '{}', '{}', '{}', '{}', 'r', '[]', 1, 1, true,
                created_at, CASE WHEN status = 'skipped_conflict' THEN NULL ELSE created_at END
           FROM (VALUES (1, 'acknowledged', now()), (2, 'reverted', now()), (3, 'pending_review', now()),
                        (4, 'skipped_conflict', now()), (5, 'acknowledged', now() - interval '2 days'))
                AS made (n, status, created_at)`,
        [otherProjectId],
      );
      const autonomy = await client.GetAutonomy({ project_id: otherProjectId }, as(agent));
      const { version, updated_at: updatedAt, updated_by: updatedBy, ...document } = guardrailsOf(autonomy);
      expect(document).to.deep.equal(defaultGuardrails());
      expect([version, updatedBy, typeof updatedAt]).to.deep.equal([1, null, 'string']);
      expect(autonomy.project_id).to.equal(otherProjectId);
      expect(autonomy.status).to.deep.equal({ effective: 'disabled', paused_actions: [] });
      expect(autonomy.kill_switch).to.deep.equal({ active: false });
      expect(autonomy.stats_24h).to.deep.equal({
        predictions: 1,
        executed: 3,
        acknowledged: 1,
        reverted: 1,
        pending_review: 1,
      });
    });

    it('merge a partial update, bump the version, and write ai.guardrails_updated with the changes', async () => {
      const before = await outbox();
      const result = await update(
        {
          actions: { set_priority: { mode: 'suggest' } },
          scope: { statuses: ['open'], ticket_type_ids: [typeId] },
        },
        1,
      );
      const guardrails = guardrailsOf(result.autonomy!);
      expect(guardrails.version).to.equal(2);
      expect(guardrails.actions.set_priority).to.deep.include({ mode: 'suggest', threshold: 0.85 });
      expect(guardrails.scope).to.deep.equal({
        ticket_type_ids: [typeId],
        statuses: ['open'],
        exclude_tags: [],
        exclude_priorities: ['critical'],
      });
      expect(guardrails.updated_by).to.deep.equal({ id: admin.user_id, name: 'Ada' });
      expect(result.autonomy!.status!.effective).to.equal('active');
      expect(result.warnings).to.deep.equal([]);
      const events = (await outbox()).slice(before.length);
      expect(events.map((event) => event.event_type)).to.deep.equal(['ai.guardrails_updated']);
      expect(events[0]!.payload).to.deep.include({
        type: 'ai.guardrails_updated',
        source: 'ai',
        project_id: projectId,
        actor: { kind: 'user', user_id: admin.user_id, api_key_id: null },
        changes: {
          'actions.set_priority.mode': { from: 'off', to: 'suggest' },
          'scope.statuses': { from: null, to: ['open'] },
          'scope.ticket_type_ids': { from: null, to: [typeId] },
        },
      });
      expect(events[0]!.payload.data).to.deep.include({ project_id: projectId, version: 2 });
    });

    it('refuse a stale version with 409, and an invalid whole with 422 by dotted path; neither writes', async () => {
      const before = await outbox();
      const { version } = guardrailsOf(await client.GetAutonomy({ project_id: projectId }, as(admin)));
      const stale = await rejection(update({ limits: { max_actions_per_hour: 10 } }, version - 1));
      expect([stale.kind, stale.message]).to.deep.equal([
        'conflict',
        'Guardrails were modified by another user',
      ]);
      const invalid = await rejection(
        update(
          {
            actions: { send_reply: { threshold: 0.85 }, set_priority: { mode: 'always' } },
            scope: { statuses: ['done'], ticket_type_ids: [typeId + 1000] },
            review: { sample_rate: 2 },
            limits: { per_day: 5 },
          },
          version,
        ),
      );
      expect(invalid.kind).to.equal('validation_failed');
      expect(invalid.validationErrors).to.deep.equal({
        'actions.set_priority.mode': ['must be one of off, suggest, auto'],
        'actions.send_reply.threshold': ['must be between 0.9 and 0.99'],
        'scope.ticket_type_ids': [`unknown ticket type: ${typeId + 1000}`],
        'scope.statuses': ['unknown status: done'],
        'limits.per_day': ['unknown key'],
        'review.sample_rate': ['must be between 0 and 1'],
      });
      const notAnObject = await rejection(update([1, 2], version));
      expect(notAnObject.validationErrors).to.deep.equal({ guardrails: ['must be a JSON object'] });
      expect(await outbox()).to.have.length(before.length);
      expect(guardrailsOf(await client.GetAutonomy({ project_id: projectId }, as(admin))).version).to.equal(
        version,
      );
    });

    it('warn when an action type goes to auto on fewer than 50 labelled decisions', async () => {
      await assistant.pool.query(
        `INSERT INTO ai_predictions (project_id, ticket_id, action_type, value, confidence, rationale, sources, outcome, outcome_at)
         SELECT $1, 10000 + n, 'add_tags', '["billing"]', 0.9, 'r', '[]', 'accepted', now() FROM generate_series(1, 50) n`,
        [projectId],
      );
      await assistant.pool.query(
        `INSERT INTO ai_predictions (project_id, ticket_id, action_type, value, confidence, rationale, sources, outcome, outcome_at)
         SELECT $1, 20000 + n, 'set_priority', '"high"', 0.9, 'r', '[]', 'accepted', now() FROM generate_series(1, 12) n`,
        [projectId],
      );
      const result = await update({
        actions: { set_priority: { mode: 'auto' }, add_tags: { mode: 'auto' }, send_reply: { mode: 'auto' } },
      });
      expect(result.warnings).to.deep.equal([
        'set_priority: only 12 labelled decisions; preview uses a backtest',
        'send_reply: only 0 labelled decisions; preview uses a backtest',
      ]);
      // Already auto: no warning again.
      expect((await update({ actions: { set_priority: { threshold: 0.9 } } })).warnings).to.deep.equal([]);
    });

    it('pause an action type whose revert rate reached its limit, from min_actions executed in the window', async () => {
      const only = (mode: 'auto') =>
        update({
          actions: {
            set_priority: { mode: 'off' },
            assign: { mode },
            add_tags: { mode: 'off' },
            close_duplicate: { mode: 'off' },
            post_internal_note: { mode: 'off' },
            send_reply: { mode: 'off' },
          },
        });
      const kept = guardrailsOf(await client.GetAutonomy({ project_id: projectId }, as(admin))).actions;
      await only('auto');
      const act = (ticketId: number, status: string, hoursAgo = 1) =>
        assistant.pool.query(
          `INSERT INTO ai_actions (project_id, ticket_id, ticket_number, action_type, status, confidence, threshold,
             before, after, expected, set, rationale, sources, ticket_version_before, guardrails_version,
             needs_review, created_at, executed_at)
           VALUES ($1, $2::int, 'X-' || $2::text, 'assign', $3, 0.95, 0.9, '{}', '{}', '{}', '{}', 'r', '[]', 1, 1, true,
             now() - make_interval(hours => $4::int), now() - make_interval(hours => $4::int))`,
          [projectId, ticketId, status, hoursAgo],
        );
      const paused = async () => {
        const autonomy = await client.GetAutonomy({ project_id: projectId }, as(admin));
        return autonomy.status;
      };
      // 1 reverted of 9 executed: below min_actions (10), not paused.
      for (let i = 0; i < 8; i += 1) await act(30_000 + i, 'acknowledged');
      await act(30_100, 'reverted');
      expect(await paused()).to.deep.include({ paused_actions: [] });
      // 10 executed, 1 reverted: 0.1, under 0.2. Reverted long ago: outside the window, not counted.
      await act(30_101, 'pending_review');
      await act(30_102, 'reverted', 48);
      await act(30_103, 'reverted', 48);
      expect(await paused()).to.deep.include({ paused_actions: [] });
      // 2 of 11 in the window: 0.18, still under; a third makes 3 of 12, 0.25: paused.
      await act(30_104, 'reverted');
      expect(await paused()).to.deep.include({ paused_actions: [] });
      // The revert that trips the breaker writes ai.action_type_paused with it; a later one does not.
      const revert = async (ticketId: number) => {
        await act(ticketId, 'pending_review');
        const { rows } = await assistant.pool.query<{ id: string }>(
          'SELECT id FROM ai_actions WHERE ticket_id = $1',
          [ticketId],
        );
        const tickets = {
          CompareAndSetTicket: () => Promise.resolve({ ticket: { id: ticketId } }),
        } as unknown as ReviewDeps['tickets'];
        await revertAction(
          {
            pool: assistant.pool,
            tickets,
            comments: {} as ReviewDeps['comments'],
            names: () => Promise.resolve(new Map()),
          },
          { projectIds: [projectId], id: rows[0]!.id, force: false },
          { principal: admin, correlationId: 'autonomy-test' },
        );
      };
      const before = await outbox();
      await revert(30_105);
      expect(await paused()).to.deep.equal({ effective: 'paused', paused_actions: ['assign'] });
      await revert(30_106);
      const events = (await outbox()).slice(before.length);
      expect(events.map((event) => event.event_type)).to.deep.equal([
        'ai.action_reverted',
        'ai.action_type_paused',
        'ai.action_reverted',
      ]);
      expect(events[1]!.payload).to.deep.include({
        project_id: projectId,
        actor: { kind: 'system', user_id: null, api_key_id: null },
        data: {
          project_id: projectId,
          action_type: 'assign',
          executed: 12,
          reverted: 3,
          revert_rate: 0.2,
          window_hours: 24,
        },
      });
      await assistant.pool.query("DELETE FROM ai_actions WHERE ticket_number LIKE 'X-%'");
      await update({ actions: kept });
    });

    it('are changed by admins only', async () => {
      const refused = await rejection(update({ limits: { max_actions_per_hour: 5 } }, undefined, agent));
      expect([refused.kind, refused.message]).to.deep.equal([
        'permission_denied',
        'Only admins may change autonomy',
      ]);
      const anonymous = await rejection(
        client.UpdateGuardrails({ project_id: projectId, guardrails_json: '{}' }),
      );
      expect(anonymous.kind).to.equal('unauthenticated');
    });
  });

  describe('the threshold preview', () => {
    it('labels recorded predictions by what became of them, and breaks them down by value', async () => {
      const predict = async (ticketId: number, value: string, confidence: number, outcome: string | null) => {
        const { rows } = await assistant.pool.query<{ id: string }>(
          `INSERT INTO ai_predictions (project_id, ticket_id, action_type, value, confidence, rationale, sources, outcome)
           VALUES ($1, $2, 'set_priority', $3, $4, 'r', '[]', $5) RETURNING id`,
          [previewProjectId, ticketId, JSON.stringify(value), confidence, outcome],
        );
        return rows[0]!.id;
      };
      const actOn = (predictionId: string, ticketId: number, status: string, reviewedBy: number | null) =>
        assistant.pool.query(
          `INSERT INTO ai_actions (project_id, ticket_id, ticket_number, prediction_id, action_type, status, confidence,
             threshold, before, after, expected, set, rationale, sources, ticket_version_before, guardrails_version,
             needs_review, executed_at, reviewed_by)
           VALUES ($1, $2::int, 'O-' || $2::text, $3, 'set_priority', $4, 0.7, 0.6, '{}', '{}', '{}', '{}', 'r', '[]', 1, 1,
             true, now(), $5)`,
          [previewProjectId, ticketId, predictionId, status, reviewedBy],
        );
      // 40 high at 0.9 applied from the console; 5 medium at 0.95 acted on and acknowledged by a
      // reviewer; 15 low at 0.7 acted on and reverted; 3 at 0.99 nobody decided yet (unknown).
      for (let i = 0; i < 40; i += 1) await predict(40_000 + i, 'high', 0.9, 'accepted');
      for (let i = 0; i < 5; i += 1)
        await actOn(
          await predict(41_000 + i, 'medium', 0.95, null),
          41_000 + i,
          'acknowledged',
          admin.user_id,
        );
      for (let i = 0; i < 15; i += 1)
        await actOn(await predict(42_000 + i, 'low', 0.7, null), 42_000 + i, 'reverted', null);
      for (let i = 0; i < 3; i += 1) await predict(43_000 + i, 'urgent', 0.99, null);

      const preview = async (threshold: number) =>
        JSON.parse(
          (
            await client.PreviewThreshold(
              { project_id: previewProjectId, action_type: 'set_priority', threshold, window_days: 30 },
              as(admin),
            )
          ).preview_json,
        ) as Record<string, any>;
      const loose = await preview(0.6);
      expect(loose).to.deep.include({
        source: 'recorded',
        sample: { predictions: 63, labelled: 60, min_labelled: 50 },
      });
      expect(loose.at_threshold).to.deep.include({ would_apply: 63, precision: 0.75 });
      expect(loose.by_value).to.deep.equal([
        { value: 'high', would_apply: 40, precision: 1 },
        { value: 'low', would_apply: 15, precision: 0 },
        { value: 'medium', would_apply: 5, precision: 1 },
        { value: 'urgent', would_apply: 3, precision: null },
      ]);
      const strict = await preview(0.8);
      expect(strict.at_threshold).to.deep.include({ would_apply: 48, precision: 1 });
      expect(strict.by_value.map((entry: { value: string }) => entry.value)).to.deep.equal([
        'high',
        'medium',
        'urgent',
      ]);
    });
  });

  describe('the kill switch', () => {
    const kill = (reason: string, project?: number, who = admin) =>
      client.ActivateKillSwitch(
        { reason, ...(project === undefined ? {} : { project_id: project }) },
        as(who),
      );
    const clear = (reason: string, project?: number, who = admin) =>
      client.ClearKillSwitch({ reason, ...(project === undefined ? {} : { project_id: project }) }, as(who));

    it('kills a project idempotently, keeping the first reason, with one event; clear-kill resumes; a second clear is 409', async () => {
      const before = await outbox();
      const first = await kill('  bad tags  ', projectId);
      expect([first.already_active, first.cancelled_actions]).to.deep.equal([false, 0]);
      expect(first.autonomy!.status!.effective).to.equal('killed');
      expect(first.autonomy!.kill_switch).to.deep.include({
        active: true,
        scope: 'project',
        reason: 'bad tags',
        activated_by: { id: admin.user_id, name: 'Ada' },
      });
      const again = await kill('another reason', projectId);
      expect(again.already_active).to.equal(true);
      expect(again.autonomy!.kill_switch!.reason).to.equal('bad tags');
      // The other project is not killed.
      expect(
        (await client.GetAutonomy({ project_id: otherProjectId }, as(admin))).kill_switch!.active,
      ).to.equal(false);

      const cleared = await clear('fixed', projectId);
      expect(cleared.kill_switch).to.deep.include({
        active: false,
        cleared_by: { id: admin.user_id, name: 'Ada' },
      });
      expect(cleared.status!.effective).to.equal('active');
      const notActive = await rejection(clear('again', projectId));
      expect([notActive.kind, notActive.message]).to.deep.equal(['conflict', 'Kill switch is not active']);

      const events = (await outbox()).slice(before.length);
      expect(events.map((event) => event.event_type)).to.deep.equal([
        'ai.kill_switch_activated',
        'ai.kill_switch_cleared',
      ]);
      expect(events[0]!.payload).to.deep.include({
        project_id: projectId,
        changes: { active: { from: false, to: true } },
      });
      expect(events[0]!.payload.data).to.deep.include({
        scope: 'project',
        reason: 'bad tags',
        project_id: projectId,
      });
      expect(events[1]!.payload.data).to.deep.include({ active: false, clear_reason: 'fixed' });
    });

    it('kills globally: every project shows it; admins only; the reason must be 1 to 500 characters', async () => {
      for (const reason of ['', '   ', 'x'.repeat(501)]) {
        const refused = await rejection(kill(reason));
        expect([refused.kind, refused.validationErrors]).to.deep.equal([
          'validation_failed',
          { reason: ['must be 1 to 500 characters'] },
        ]);
      }
      expect((await rejection(kill('stop', undefined, agent))).kind).to.equal('permission_denied');
      const global = await kill('x'.repeat(500));
      expect(global.autonomy!.project_id).to.equal(undefined);
      expect(global.autonomy!.kill_switch).to.deep.include({ active: true, scope: 'global' });
      const project = await client.GetAutonomy({ project_id: otherProjectId }, as(admin));
      expect(project.status!.effective).to.equal('killed');
      expect(project.kill_switch).to.deep.include({ active: true, scope: 'global' });
      expect((await clear('resume')).kill_switch!.active).to.equal(false);
      expect(
        (await client.GetAutonomy({ project_id: otherProjectId }, as(admin))).kill_switch!.active,
      ).to.equal(false);
    });

    it('waits for a gate holding its transaction, and no gate passes once it returned', async () => {
      // Both switch rows exist already, so only the gate's share lock can hold the kill back.
      await client.GetAutonomy({ project_id: projectId }, as(admin));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      let gatePid = 0;
      const gate = withAutonomyGate(assistant.pool, projectId, async (gateClient) => {
        gatePid = (await gateClient.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        entered();
        await held;
        return 'action inserted';
      });
      await inside;
      let killReturned = false;
      const killing = kill('stop now').then((result) => {
        killReturned = true;
        return result;
      });
      try {
        // The kill's lock of the global row waits for the gate's share lock (no lock: nothing waits).
        await eventually(async () => {
          const { rows } = await assistant.pool.query<{ blocked: number }>(
            `SELECT count(DISTINCT pid)::int AS blocked FROM pg_locks
              WHERE NOT granted AND $1::int = ANY(pg_blocking_pids(pid))`,
            [gatePid],
          );
          expect(rows[0]!.blocked).to.equal(1);
          return true;
        }, 20_000);
        expect(killReturned).to.equal(false);
      } finally {
        release();
      }
      expect(await gate).to.deep.equal({ passed: true, value: 'action inserted' });
      expect((await killing).already_active).to.equal(false);

      let ran = false;
      const after = await withAutonomyGate(assistant.pool, projectId, () => {
        ran = true;
        return Promise.resolve();
      });
      expect([after, ran]).to.deep.equal([{ passed: false, killed: 'global' }, false]);
      await clear('resume');
      expect(
        await withAutonomyGate(assistant.pool, projectId, (gateClient) =>
          gateClient.query<{ value: string }>(`SELECT 'again' AS value`).then(({ rows }) => rows[0]!.value),
        ),
      ).to.deep.equal({
        passed: true,
        value: 'again',
      });
    });
  });
});
