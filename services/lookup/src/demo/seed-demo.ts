/**
 * Seeding the demo data set through the same use cases (and rules) as the admin commands. Each
 * piece is created only when missing, so a second run changes nothing; a demo key that was revoked
 * counts as missing and is issued again. Demo tickets (asked for with `withTickets`) go through the
 * ticket and comment services (seed-demo-tickets.ts).
 */
import { randomBytes } from 'node:crypto';
import type { ApiKeyRecord } from '../api-keys/api-key-store.js';
import type { ApiKeyService } from '../api-keys/api-key-service.js';
import type { ProjectRecord } from '../projects/project-store.js';
import type { ProjectService } from '../projects/project-service.js';
import type { TicketTypeRecord } from '../ticket-types/ticket-type-store.js';
import type { TicketTypeService } from '../ticket-types/ticket-type-service.js';
import type { UserRecord } from '../users/user-store.js';
import type { UserService } from '../users/user-service.js';
import { DEMO_KEYS, DEMO_PROJECTS, DEMO_TICKET_TYPES, DEMO_USERS } from './demo-data.js';
import { seedDemoTickets, type DemoTicketPeers } from './seed-demo-tickets.js';

export interface SeedDemoOutcome {
  projects: ProjectRecord[];
  ticketTypes: TicketTypeRecord[];
  users: UserRecord[];
  /** Keys issued by this run, with their values (shown this once). */
  createdKeys: { key: ApiKeyRecord; value: string }[];
  /** Passwords of the demo users this run created (shown this once), so that they can sign in. */
  createdPasswords: { email: string; password: string }[];
  createdTickets: number;
  createdComments: number;
}

export interface SeedDemoOptions {
  /** Also create the demo tickets and comments (in projects that have no tickets yet). */
  withTickets: boolean;
  /** The correlation id of the request, passed on to the ticket and comment services. */
  correlationId: string;
}

/** 16 random base64url characters: 96 bits, typed once from the seed's output. */
function demoPassword(): string {
  return randomBytes(12).toString('base64url');
}

export interface DemoSeeder {
  /** Ensures the demo data set exists and returns it; concurrent calls in this process run one after another. */
  seedDemo(options: SeedDemoOptions): Promise<SeedDemoOutcome>;
}

/** Builds the demo seeder over the domain services. */
export function createDemoSeeder(deps: {
  projects: ProjectService;
  ticketTypes: TicketTypeService;
  users: UserService;
  apiKeys: ApiKeyService;
  peers: DemoTicketPeers;
}): DemoSeeder {
  const { projects, ticketTypes, users, apiKeys } = deps;
  let queue: Promise<unknown> = Promise.resolve();

  async function seed(options: SeedDemoOptions): Promise<SeedDemoOutcome> {
    const outcome: SeedDemoOutcome = {
      projects: [],
      ticketTypes: [],
      users: [],
      createdKeys: [],
      createdPasswords: [],
      createdTickets: 0,
      createdComments: 0,
    };
    for (const demo of DEMO_PROJECTS) {
      outcome.projects.push(
        (await projects.findProject({ slug: demo.slug })) ?? (await projects.createProject(demo)),
      );
    }
    for (const demo of DEMO_TICKET_TYPES) {
      const project = await projects.resolveProject({ slug: demo.projectSlug });
      const existing = (await ticketTypes.listTicketTypes(project.id)).find(
        (type) => type.slug === demo.slug,
      );
      outcome.ticketTypes.push(
        existing ??
          (await ticketTypes.createTicketType({
            project: { id: project.id },
            name: demo.name,
            slug: demo.slug,
            description: demo.description,
            isDefault: demo.isDefault,
            fieldSchemaJson: JSON.stringify(demo.fieldSchema),
          })),
      );
    }
    for (const demo of DEMO_USERS) {
      const existing = await users.findUser({ email: demo.email });
      if (existing) {
        outcome.users.push(existing);
        continue;
      }
      const password = demoPassword();
      outcome.users.push(await users.createUser({ ...demo, password }));
      outcome.createdPasswords.push({ email: demo.email, password });
    }
    for (const demo of DEMO_KEYS) {
      const owner = outcome.users.find((user) => user.email === demo.ownerEmail)!;
      if (await apiKeys.hasUnrevokedKeyNamed(owner.id, demo.name)) continue;
      outcome.createdKeys.push(
        await apiKeys.createApiKey({
          user: { id: owner.id },
          scopes: demo.scopes,
          name: demo.name,
          ...(demo.projectSlug ? { project: { slug: demo.projectSlug } } : {}),
        }),
      );
    }
    if (options.withTickets) {
      const made = await seedDemoTickets(deps.peers, {
        projects: outcome.projects,
        ticketTypes: outcome.ticketTypes,
        users: outcome.users,
        correlationId: options.correlationId,
      });
      outcome.createdTickets = made.createdTickets;
      outcome.createdComments = made.createdComments;
    }
    return outcome;
  }

  return {
    seedDemo(options) {
      const run = queue.then(() => seed(options));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
