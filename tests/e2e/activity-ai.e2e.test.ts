/**
 * The assistant's autonomy in the activity log, through the fleet (ai service -> its outbox ->
 * RabbitMQ `ai.*` -> activity service -> gateway): an admin changes a project's guardrails and
 * stops and resumes the assistant for the project and for every project on the session host; the
 * feed (page and poll) shows each as one entry under the admin's name, a global switch in the feed
 * of every project active before it and a project's only in its own; the feed's filters find them (a guardrail setting
 * by its dotted path too); the event stream integrators read on /v1/events carries none of them.
 * The global switch is cleared again whatever happens, since the fleet is shared.
 */
import { expect } from 'chai';
import { eventually, expectError } from '@tix/kit/testing';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
} from '../support/fixtures.js';
import { request, type ApiResponse } from '../support/http.js';
import { signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'activity ai e2e passphrase';
/** How long an event may take from the write to the feed. */
const ARRIVAL_MS = 20_000;

interface Entry {
  id: number;
  type: string;
  project_id: number | null;
  actor: { kind: string; user_id: number | null; name: string | null; via: unknown };
  subject: { type: string; id: number; ticket_number: string | null; title: string | null };
  changes: Record<string, { from: unknown; to: unknown }>;
  summary: string;
}

describe("the assistant's autonomy in the activity log, through the fleet", function () {
  this.timeout(120_000);
  let project: ProjectFixture;
  let other: ProjectFixture;
  let admin: BrowserSession;
  let viewer: BrowserSession;
  let key: string;
  let typeId: number;
  /** Where the feed and the stream stood before anything happened. */
  let feedStart = '';
  let streamStart = '';
  /** Each reason names this run, so entries of other runs on the same fleet are told apart. */
  const run = Math.random().toString(36).slice(2, 8);

  const ok = (response: ApiResponse) => {
    expect(response.status, response.text).to.equal(200);
    return response.body.data;
  };
  /** A project's feed as the viewer reads it, newest first. */
  const feedOf = async (slug: string, query = ''): Promise<Entry[]> =>
    ok(await viewer.call('GET', `/activity?project=${slug}&per_page=100${query}`)).activities as Entry[];
  /** The entries of this run's ai.* happenings in a project's feed, oldest first. */
  const ours = async (slug: string, query = '') =>
    (await feedOf(slug, `&type=ai.*${query}`))
      .filter((entry) => entry.type === 'ai.guardrails_updated' || entry.summary.includes(run))
      .reverse();

  before(async () => {
    project = await createProject();
    other = await createProject();
    admin = await signIn((await createUser('admin', { password: PASSWORD })).email, PASSWORD);
    viewer = await signIn((await createUser('viewer', { password: PASSWORD })).email, PASSWORD);
    key = (await createKey({ project: project.slug })).key;
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    feedStart = ok(await viewer.call('GET', `/activity?project=${project.slug}`)).cursor as string;
    streamStart = ok(await request('/v1/events', { key })).cursor as string;

    // The other project's first entry: the global switch concerns projects active before it.
    ok(
      await admin.call('PUT', `/ai/autonomy/guardrails?project=${other.slug}`, {
        review: { sample_rate: 0.5 },
      }),
    );
    ok(
      await admin.call('PUT', `/ai/autonomy/guardrails?project=${project.slug}`, {
        version: 1,
        actions: { set_priority: { mode: 'suggest' } },
        limits: { max_actions_per_hour: 5 },
      }),
    );
    ok(await admin.call('POST', `/ai/autonomy/kill?project=${project.slug}`, { reason: `project ${run}` }));
    ok(
      await admin.call('POST', `/ai/autonomy/clear-kill?project=${project.slug}`, {
        reason: `resume ${run}`,
      }),
    );
    try {
      ok(await admin.call('POST', '/ai/autonomy/kill', { reason: `everything ${run}` }));
    } finally {
      // Never leave the shared fleet's autonomy stopped.
      ok(await admin.call('POST', '/ai/autonomy/clear-kill', { reason: `all clear ${run}` }));
    }
  });

  /** This run's five entries in the project's feed, once they have all arrived. */
  const arrived = () =>
    eventually(async () => {
      const found = await ours(project.slug);
      return found.length >= 5 ? found : undefined;
    }, ARRIVAL_MS);

  it("shows each change as one entry under the admin's name, the global switch in other projects' feeds", async () => {
    const entries = await arrived();
    const name = admin.user.name;
    expect(entries.map((entry) => entry.summary)).to.deep.equal([
      `${name} changed the assistant's guardrails: actions.set_priority.mode from "off" to "suggest" and ` +
        'limits.max_actions_per_hour from 60 to 5',
      `${name} activated the assistant's kill switch for this project: "project ${run}"`,
      `${name} cleared the assistant's kill switch for this project: "resume ${run}"`,
      `${name} activated the assistant's kill switch for every project: "everything ${run}"`,
      `${name} cleared the assistant's kill switch for every project: "all clear ${run}"`,
    ]);
    for (const entry of entries) {
      expect(entry.actor).to.deep.equal({
        kind: 'user',
        user_id: admin.user.id,
        name,
        api_key_id: null,
        via: null,
      });
    }
    const [guardrails, killed, , global] = entries;
    expect(guardrails!).to.deep.include({ type: 'ai.guardrails_updated', project_id: project.id });
    expect(guardrails!.subject).to.deep.equal({
      type: 'project',
      id: project.id,
      ticket_number: null,
      title: null,
    });
    expect(guardrails!.changes).to.deep.equal({
      'actions.set_priority.mode': { from: 'off', to: 'suggest' },
      'limits.max_actions_per_hour': { from: 60, to: 5 },
    });
    expect(killed!).to.deep.include({ type: 'ai.kill_switch_activated', project_id: project.id });
    expect(global!).to.deep.include({ type: 'ai.kill_switch_activated', project_id: null });
    expect(global!.subject).to.deep.equal({ type: 'all_projects', id: 0, ticket_number: null, title: null });

    // Another project's feed: its own guardrails and the global switch, none of this project's.
    expect((await ours(other.slug)).map((entry) => entry.summary)).to.deep.equal([
      `${name} changed the assistant's guardrails: review.sample_rate from 1 to 0.5`,
      `${name} activated the assistant's kill switch for every project: "everything ${run}"`,
      `${name} cleared the assistant's kill switch for every project: "all clear ${run}"`,
    ]);
    // A project made after it was never stopped by it.
    const later = await createProject();
    expect(await ours(later.slug)).to.deep.equal([]);
  });

  it('polls them after the first page, and finds them by type, actor and actor kind', async () => {
    const polled = await eventually(async () => {
      const page = ok(await viewer.call('GET', `/activity/new?project=${project.slug}&cursor=${feedStart}`));
      const found = (page.activities as Entry[]).filter((entry) => entry.type.startsWith('ai.'));
      return found.length >= 5 ? found : undefined;
    }, ARRIVAL_MS);
    expect(
      polled.filter((entry) => entry.summary.includes(run) || entry.type === 'ai.guardrails_updated'),
    ).to.have.length(5);

    const byAdmin = await feedOf(project.slug, `&actor_id=${admin.user.id}`);
    expect(byAdmin.map((entry) => entry.type).sort()).to.deep.equal([
      'ai.guardrails_updated',
      'ai.kill_switch_activated',
      'ai.kill_switch_activated',
      'ai.kill_switch_cleared',
      'ai.kill_switch_cleared',
    ]);
    const guardrailsOnly = await feedOf(project.slug, '&type=ai.guardrails_updated&actor_kind=user');
    expect(guardrailsOnly.map((entry) => entry.type)).to.deep.equal(['ai.guardrails_updated']);
    expect(await feedOf(project.slug, `&type=ai.*&actor_kind=ai`)).to.deep.equal([]);
    // A guardrail setting by its dotted path, as the entry's changes name it.
    const bySetting = await feedOf(project.slug, '&field=limits.max_actions_per_hour');
    expect(bySetting.map((entry) => entry.type)).to.deep.equal(['ai.guardrails_updated']);
    expect(await feedOf(project.slug, '&field=limits.max_actions_per_ticket')).to.deep.equal([]);
    expectError(
      await viewer.call('GET', `/activity?project=${project.slug}&actor_kind=robot&type=ai&field=limits.`),
      400,
      'Invalid actor_kind, type, field',
      ['actor_kind', 'type', 'field'],
    );
  });

  it('keeps them out of the event stream integrators read on /v1/events', async () => {
    // The ai.* events are consumed (their entries are in the feed) before this ticket is written, so
    // once its event is in the stream, theirs would be too, if the stream took them.
    await arrived();
    const ticket = await createTicket(key, { ticket_type_id: typeId, title: `After the kill switch ${run}` });
    const events = await eventually(async () => {
      const page = ok(await request(`/v1/events?after=${streamStart}&limit=100`, { key }));
      const found = page.events as { event: string; data: { id?: number } }[];
      return found.some((event) => event.event === 'ticket.created' && event.data.id === ticket.id)
        ? found
        : undefined;
    }, ARRIVAL_MS);
    expect(events.map((event) => event.event)).to.deep.equal(['ticket.created']);
    const aiOnly = ok(await request(`/v1/events?after=${streamStart}&types=ai.*`, { key }));
    expect(aiOnly.events).to.deep.equal([]);
  });
});
