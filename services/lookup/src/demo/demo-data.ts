/**
 * The demo data set: two projects (the default workflow and a custom one), ticket types whose
 * custom fields use all ten field types, one user of every role, and keys for the common cases.
 * Demo users get a random password each, shown once by the run that creates them (seed-demo.ts):
 * a fixed, published one would be a standing admin login on any server the demo was ever seeded on.
 */
import { SCOPES, type ResolutionType, type Role, type Scope, type TicketPriority } from '@tix/protos';
import type { StatusDefinition } from '../projects/project-rules.js';

export interface DemoProject {
  name: string;
  slug: string;
  prefix: string;
  description: string;
  /** Empty: the default workflow. */
  statuses: StatusDefinition[];
}

export interface DemoTicketType {
  projectSlug: string;
  name: string;
  slug: string;
  description: string;
  isDefault: boolean;
  fieldSchema: object[];
}

export interface DemoUser {
  name: string;
  email: string;
  role: Role;
}

export interface DemoKey {
  /** Recognises the key on later runs (with its owner). */
  name: string;
  ownerEmail: string;
  scopes: Scope[];
  projectSlug?: string;
}

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

export const DEMO_PROJECTS: readonly DemoProject[] = [
  {
    name: 'Customer Support',
    slug: 'support',
    prefix: 'SUP',
    description: 'Questions and problems reported by customers.',
    statuses: [],
  },
  {
    name: 'Platform',
    slug: 'platform',
    prefix: 'PLAT',
    description: 'Incidents and work of the platform team.',
    statuses: [
      { slug: 'triage', label: 'Triage', isClosed: false },
      { slug: 'todo', label: 'To do', isClosed: false },
      { slug: 'in_progress', label: 'In progress', isClosed: false },
      { slug: 'in_review', label: 'In review', isClosed: false },
      { slug: 'done', label: 'Done', isClosed: true },
      { slug: 'wont_do', label: "Won't do", isClosed: true },
    ],
  },
];

function field(
  order: number,
  name: string,
  label: string,
  type: string,
  options: { required?: boolean; constraints?: object; default_value?: unknown } = {},
): object {
  return {
    name,
    label,
    type,
    required: options.required ?? false,
    constraints: options.constraints ?? {},
    default_value: options.default_value ?? null,
    order,
  };
}

export const DEMO_TICKET_TYPES: readonly DemoTicketType[] = [
  {
    projectSlug: 'support',
    name: 'Question',
    slug: 'question',
    description: 'A customer asks how something works.',
    isDefault: true,
    fieldSchema: [
      field(1, 'product', 'Product', 'select', {
        required: true,
        constraints: { allowed_values: ['web', 'mobile', 'api'] },
        default_value: 'web',
      }),
      field(2, 'contact_email', 'Contact email', 'email'),
      field(3, 'vip', 'VIP customer', 'boolean', { default_value: false }),
    ],
  },
  {
    projectSlug: 'support',
    name: 'Bug report',
    slug: 'bug_report',
    description: 'Something does not work as documented.',
    isDefault: false,
    fieldSchema: [
      field(1, 'version', 'Version', 'text', {
        constraints: { min_length: 1, max_length: 20, pattern: '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$' },
      }),
      field(2, 'steps_to_reproduce', 'Steps to reproduce', 'textarea', {
        required: true,
        constraints: { min_length: 10, max_length: 5000 },
      }),
      field(3, 'screenshot_url', 'Screenshot', 'url'),
      field(4, 'occurred_on', 'Occurred on', 'date'),
    ],
  },
  {
    projectSlug: 'platform',
    name: 'Incident',
    slug: 'incident',
    description: 'Production is degraded or down.',
    isDefault: true,
    fieldSchema: [
      field(1, 'severity', 'Severity', 'select', {
        required: true,
        constraints: { allowed_values: ['sev1', 'sev2', 'sev3'] },
        default_value: 'sev3',
      }),
      field(2, 'started_at', 'Started at', 'datetime'),
      field(3, 'affected_users', 'Affected users', 'number', {
        constraints: { min_value: 0, max_value: 100000000 },
      }),
      field(4, 'components', 'Components', 'multi_select', {
        constraints: { allowed_values: ['api', 'web', 'database', 'queue'] },
      }),
    ],
  },
  {
    projectSlug: 'platform',
    name: 'Task',
    slug: 'task',
    description: 'Planned work.',
    isDefault: false,
    fieldSchema: [],
  },
];

export const DEMO_USERS: readonly DemoUser[] = [
  { name: 'Ada Admin', email: 'admin@example.com', role: 'admin' },
  { name: 'Lee Lead', email: 'lead@example.com', role: 'team_lead' },
  { name: 'Alex Agent', email: 'agent@example.com', role: 'agent' },
  { name: 'Vi Viewer', email: 'viewer@example.com', role: 'viewer' },
];

export const DEMO_KEYS: readonly DemoKey[] = [
  { name: 'demo: admin, all scopes, all projects', ownerEmail: 'admin@example.com', scopes: [...SCOPES] },
  {
    name: 'demo: platform team lead',
    ownerEmail: 'lead@example.com',
    scopes: [...SCOPES],
    projectSlug: 'platform',
  },
  {
    name: 'demo: support agent',
    ownerEmail: 'agent@example.com',
    scopes: ['tickets:read', 'tickets:write', 'comments:read', 'comments:write'],
    projectSlug: 'support',
  },
  { name: 'demo: read-only', ownerEmail: 'viewer@example.com', scopes: ['tickets:read', 'comments:read'] },
];
