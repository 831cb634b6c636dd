/**
 * The demo tickets: a living board for a newcomer. Each demo project gets tickets in every lane of
 * its workflow, written by the demo users, with comments (public replies and internal notes), custom
 * field values, tags, priorities and assignees, so that every screen has something real to show.
 * The support project's resolved history (demo-history.ts) comes first, for the assistant.
 */
import type { ResolutionType, TicketPriority } from '@tix/protos';
import { DEMO_HISTORY } from './demo-history.js';

export interface DemoComment {
  /** Email of the demo user who writes it. */
  by: string;
  content: string;
  /** Internal notes are visible to the team only (comments default to internal). */
  internal: boolean;
}

export interface DemoTicket {
  projectSlug: string;
  typeSlug: string;
  title: string;
  description: string;
  priority: TicketPriority;
  /** The lane it ends in (the first status of the workflow when it is created), after its comments. */
  status: string;
  /** For closed lanes. */
  resolution?: ResolutionType;
  /** Email of the demo user who reports it. */
  reporter: string;
  assignee?: string;
  tags: string[];
  customFields: Record<string, unknown>;
  comments: DemoComment[];
}

const ADMIN = 'admin@example.com';
const LEAD = 'lead@example.com';
const AGENT = 'agent@example.com';

const note = (by: string, content: string): DemoComment => ({ by, content, internal: true });
const reply = (by: string, content: string): DemoComment => ({ by, content, internal: false });

const SUPPORT: DemoTicket[] = [
  {
    projectSlug: 'support',
    typeSlug: 'question',
    title: 'Password reset email never arrives',
    description:
      'Customer (Harbor Freight Co.) requested a reset three times this morning; nothing in inbox or spam.',
    priority: 'high',
    status: 'open',
    reporter: AGENT,
    assignee: AGENT,
    tags: ['email', 'login'],
    customFields: { product: 'web', contact_email: 'it@harborfreight.example', vip: true },
    comments: [
      note(AGENT, 'Their domain rejects mail from our relay: the bounce log says "550 SPF check failed".'),
      reply(AGENT, 'Hello, we are looking into it; meanwhile an admin on your side can set a new password.'),
    ],
  },
  {
    projectSlug: 'support',
    typeSlug: 'bug_report',
    title: 'CSV export cuts names with accents',
    description: 'Names such as "Zoë Ångström" come out as "Zo" in the exported CSV file.',
    priority: 'medium',
    status: 'open',
    reporter: LEAD,
    tags: ['export', 'encoding'],
    customFields: {
      version: '4.2.1',
      steps_to_reproduce: 'Create a contact named Zoë Ångström, export contacts as CSV, open the file.',
      occurred_on: '2026-11-18',
    },
    comments: [note(LEAD, 'Probably the Latin-1 writer again; see the 4.1 release notes.')],
  },
  {
    projectSlug: 'support',
    typeSlug: 'question',
    title: 'How do I add a second billing contact?',
    description: 'The billing page only lets me enter one email address.',
    priority: 'low',
    status: 'open',
    reporter: AGENT,
    tags: ['billing'],
    customFields: { product: 'web', contact_email: 'finance@northwind.example' },
    comments: [],
  },
  {
    projectSlug: 'support',
    typeSlug: 'question',
    title: 'Mobile app asks to sign in every morning',
    description: 'Since the last update the iOS app forgets the session overnight.',
    priority: 'medium',
    status: 'open',
    reporter: AGENT,
    tags: ['mobile', 'login'],
    customFields: { product: 'mobile' },
    comments: [reply(AGENT, 'Could you tell us the app version shown under Settings → About?')],
  },
  {
    projectSlug: 'support',
    typeSlug: 'bug_report',
    title: 'Invoice PDF shows the wrong VAT rate for Austria',
    description: 'Invoices for Austrian customers show 19% instead of 20%.',
    priority: 'critical',
    status: 'work_in_progress',
    reporter: LEAD,
    assignee: LEAD,
    tags: ['billing', 'tax'],
    customFields: {
      version: '4.2.0',
      steps_to_reproduce:
        'Open any invoice of an AT customer created after 1 November and read the VAT line.',
      occurred_on: '2026-11-02',
    },
    comments: [
      note(LEAD, 'Tax table was copied from DE. Fix is ready; finance must approve re-issuing 38 invoices.'),
      note(ADMIN, 'Approved. Re-issue them with a short apology note.'),
    ],
  },
  {
    projectSlug: 'support',
    typeSlug: 'question',
    title: 'API rate limit for the enterprise plan?',
    description: 'We plan to sync 200k records nightly. What limits apply on the enterprise plan?',
    priority: 'medium',
    status: 'work_in_progress',
    reporter: AGENT,
    assignee: AGENT,
    tags: ['api', 'sales'],
    customFields: { product: 'api', contact_email: 'dev@contoso.example', vip: true },
    comments: [
      reply(
        AGENT,
        'The enterprise plan allows 1,000 requests per minute; bulk endpoints count once per call.',
      ),
      note(AGENT, 'Asked sales whether they want a temporary raise for the initial import.'),
    ],
  },
  {
    projectSlug: 'support',
    typeSlug: 'bug_report',
    title: 'Search finds nothing for ticket numbers with lower case',
    description: 'Searching "sup-12" returns nothing while "SUP-12" works.',
    priority: 'low',
    status: 'work_in_progress',
    reporter: AGENT,
    assignee: AGENT,
    tags: ['search'],
    customFields: {
      version: '4.2.1',
      steps_to_reproduce: 'Type sup-12 into the search box and press enter.',
    },
    comments: [note(AGENT, 'Reproduced. Normalising the query before matching numbers.')],
  },
  {
    projectSlug: 'support',
    typeSlug: 'question',
    title: 'Can we keep data in the EU region?',
    description: 'Our DPO needs confirmation that tickets and attachments stay in the EU.',
    priority: 'high',
    status: 'waiting',
    reporter: AGENT,
    assignee: ADMIN,
    tags: ['compliance', 'sales'],
    customFields: { product: 'web', contact_email: 'dpo@fabrikam.example', vip: true },
    comments: [
      reply(ADMIN, 'Yes: EU accounts are stored in Frankfurt. I have sent the DPA for signature.'),
      note(ADMIN, 'Waiting for the signed DPA.'),
    ],
  },
  {
    projectSlug: 'support',
    typeSlug: 'bug_report',
    title: 'Dark mode: white flash when opening a ticket',
    description: 'The ticket page briefly renders white before switching to the dark theme.',
    priority: 'low',
    status: 'waiting',
    reporter: AGENT,
    assignee: AGENT,
    tags: ['ui'],
    customFields: {
      version: '4.2.1',
      steps_to_reproduce: 'Enable dark mode, open the board, click any ticket card.',
      screenshot_url: 'https://example.com/screens/flash.png',
    },
    comments: [reply(AGENT, 'Which browser and version do you use? We could not reproduce it in Firefox.')],
  },
  {
    projectSlug: 'support',
    typeSlug: 'question',
    title: 'Webhook deliveries stopped after changing our endpoint',
    description: 'We moved our receiver to a new host; since then no deliveries arrive.',
    priority: 'medium',
    status: 'waiting',
    reporter: LEAD,
    assignee: LEAD,
    tags: ['api', 'webhooks'],
    customFields: { product: 'api', contact_email: 'ops@tailspin.example' },
    comments: [
      reply(LEAD, 'The delivery log shows TLS handshake failures: the new certificate is self-signed.'),
    ],
  },
  {
    projectSlug: 'support',
    typeSlug: 'question',
    title: 'Change the company name on invoices',
    description: 'We renamed from "Litware" to "Litware Group"; future invoices should say so.',
    priority: 'low',
    status: 'closed',
    resolution: 'resolved',
    reporter: AGENT,
    assignee: AGENT,
    tags: ['billing'],
    customFields: { product: 'web' },
    comments: [reply(AGENT, 'Done: the next invoice will carry the new name.')],
  },
  {
    projectSlug: 'support',
    typeSlug: 'bug_report',
    title: 'Attachments over 5 MB fail with a timeout',
    description: 'Uploading a 7 MB PDF spins for a minute and fails.',
    priority: 'high',
    status: 'closed',
    resolution: 'resolved',
    reporter: LEAD,
    assignee: LEAD,
    tags: ['attachments'],
    customFields: {
      version: '4.1.9',
      steps_to_reproduce: 'Attach a 7 MB PDF to any ticket from the browser on a slow connection.',
    },
    comments: [
      note(LEAD, 'Proxy timeout was 30 s. Raised to 120 s and uploads now stream.'),
      reply(LEAD, 'Fixed in 4.2.0; please try again.'),
    ],
  },
  {
    projectSlug: 'support',
    typeSlug: 'question',
    title: 'Export all tickets to our data warehouse',
    description: 'Is there a bulk export we could schedule nightly?',
    priority: 'medium',
    status: 'closed',
    resolution: 'wont_fix',
    reporter: AGENT,
    assignee: AGENT,
    tags: ['api', 'export'],
    customFields: { product: 'api' },
    comments: [
      reply(AGENT, 'Not planned; the list endpoint with updated_at sorting does this incrementally.'),
    ],
  },
  {
    projectSlug: 'support',
    typeSlug: 'question',
    title: 'Reset email does not arrive (second report)',
    description: 'Same symptoms as the Harbor Freight report: no reset email.',
    priority: 'medium',
    status: 'closed',
    resolution: 'duplicate',
    reporter: AGENT,
    assignee: AGENT,
    tags: ['email', 'login'],
    customFields: { product: 'web' },
    comments: [note(AGENT, 'Same SPF issue as the first report; following up there.')],
  },
];

const PLATFORM: DemoTicket[] = [
  {
    projectSlug: 'platform',
    typeSlug: 'incident',
    title: 'Elevated 502s from the API gateway in eu-west',
    description: 'Error rate rose from 0.1% to 4% at 09:12 UTC; only eu-west is affected.',
    priority: 'critical',
    status: 'triage',
    reporter: LEAD,
    assignee: LEAD,
    tags: ['api', 'eu-west'],
    customFields: {
      severity: 'sev1',
      started_at: '2026-11-24T09:12:00Z',
      affected_users: 1800,
      components: ['api'],
    },
    comments: [
      note(LEAD, 'Upstream connection resets from two of six nodes; draining them now.'),
      note(ADMIN, 'Status page updated. Next update in 30 minutes.'),
    ],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'incident',
    title: 'Nightly backup job took 5 hours',
    description: 'The backup usually takes 40 minutes; last night it ran until 06:10.',
    priority: 'high',
    status: 'triage',
    reporter: AGENT,
    tags: ['database', 'backup'],
    customFields: { severity: 'sev3', components: ['database'] },
    comments: [],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'task',
    title: 'Rotate the S3 access keys',
    description: 'Quarterly rotation of the attachment store credentials.',
    priority: 'medium',
    status: 'todo',
    reporter: ADMIN,
    assignee: AGENT,
    tags: ['security', 'chore'],
    customFields: {},
    comments: [note(ADMIN, 'Use the two-key overlap so uploads never fail during the switch.')],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'task',
    title: 'Upgrade PostgreSQL 15 to 17',
    description: 'Plan the upgrade with logical replication to keep downtime under a minute.',
    priority: 'medium',
    status: 'todo',
    reporter: LEAD,
    assignee: LEAD,
    tags: ['database'],
    customFields: {},
    comments: [],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'task',
    title: 'Alert when the outbox backlog grows',
    description: 'Page when unpublished outbox events are older than five minutes in any service.',
    priority: 'high',
    status: 'todo',
    reporter: LEAD,
    tags: ['observability'],
    customFields: {},
    comments: [note(LEAD, 'The relay already exports the oldest unpublished age as a gauge.')],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'task',
    title: 'Move RabbitMQ queues to quorum queues',
    description: 'Classic mirrored queues are deprecated; migrate the remaining two.',
    priority: 'medium',
    status: 'in_progress',
    reporter: LEAD,
    assignee: AGENT,
    tags: ['queue'],
    customFields: {},
    comments: [note(AGENT, 'webhooks.events migrated; the audit queue is next.')],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'incident',
    title: 'Queue consumers restart every few hours',
    description: 'The webhook consumer pods restart with exit code 137.',
    priority: 'high',
    status: 'in_progress',
    reporter: AGENT,
    assignee: LEAD,
    tags: ['queue', 'memory'],
    customFields: { severity: 'sev2', started_at: '2026-11-23T14:00:00Z', components: ['queue'] },
    comments: [
      note(LEAD, 'OOM kills: memory limit 256 MiB while prefetch allows 200 large messages in flight.'),
      note(AGENT, 'Lowering prefetch to 20 in staging to confirm.'),
    ],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'task',
    title: 'Document the restore drill',
    description: 'Write down the steps we followed in the October restore drill.',
    priority: 'low',
    status: 'in_review',
    reporter: ADMIN,
    assignee: AGENT,
    tags: ['docs', 'backup'],
    customFields: {},
    comments: [note(LEAD, 'Reviewed: please add how long each step took.')],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'task',
    title: 'Add readiness probes to the attachment service',
    description: 'Pods receive traffic before the S3 bucket check has passed.',
    priority: 'medium',
    status: 'in_review',
    reporter: LEAD,
    assignee: LEAD,
    tags: ['kubernetes'],
    customFields: {},
    comments: [],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'incident',
    title: 'Certificate for status page expired',
    description: 'status.example.com served an expired certificate for 20 minutes.',
    priority: 'high',
    status: 'done',
    resolution: 'resolved',
    reporter: AGENT,
    assignee: ADMIN,
    tags: ['tls'],
    customFields: {
      severity: 'sev2',
      started_at: '2026-11-20T07:40:00Z',
      affected_users: 300,
      components: ['web'],
    },
    comments: [note(ADMIN, 'Renewed, and the renewal job now alerts 14 days ahead.')],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'task',
    title: 'Remove the legacy FTP import',
    description: 'Nobody has used the FTP import since March.',
    priority: 'low',
    status: 'done',
    resolution: 'resolved',
    reporter: LEAD,
    assignee: AGENT,
    tags: ['cleanup'],
    customFields: {},
    comments: [],
  },
  {
    projectSlug: 'platform',
    typeSlug: 'task',
    title: 'Self-host the error tracker',
    description: 'Evaluate running the error tracker ourselves instead of the SaaS plan.',
    priority: 'low',
    status: 'wont_do',
    resolution: 'wont_fix',
    reporter: AGENT,
    tags: ['observability'],
    customFields: {},
    comments: [note(ADMIN, 'Not worth the operations cost at our size; keeping the SaaS plan.')],
  },
];

export const DEMO_TICKETS: readonly DemoTicket[] = [...DEMO_HISTORY, ...SUPPORT, ...PLATFORM];
