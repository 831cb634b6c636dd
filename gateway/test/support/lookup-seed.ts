/**
 * Seeding a real lookup service (startTestLookupServer) through its admin client, for the gateway's
 * integration tests against real services: the projects, ticket types and API keys most suites start
 * from.
 */
import type { ServiceClient } from '@tix/kit';

type LookupAdmin = ServiceClient<'lookup'>;

/** Projects Alpha (ALP) and Beta (BET), created in that order; answers their ids. */
export async function createAlphaAndBeta(admin: LookupAdmin): Promise<{ alpha: number; beta: number }> {
  const alpha = await admin.CreateProject({ name: 'Alpha', slug: 'alpha', prefix: 'ALP', description: '' });
  const beta = await admin.CreateProject({ name: 'Beta', slug: 'beta', prefix: 'BET', description: '' });
  return { alpha: alpha.id, beta: beta.id };
}

/** A project's default ticket type without custom fields (Task unless named); answers its id. */
export async function createDefaultType(
  admin: LookupAdmin,
  project_slug: string,
  type: { name: string; slug: string } = { name: 'Task', slug: 'task' },
): Promise<number> {
  const created = await admin.CreateTicketType({
    project_slug,
    ...type,
    description: '',
    is_default: true,
    field_schema_json: '[]',
  });
  return created.id;
}

/** The default type (see createDefaultType) of each project, created in the order given; answers the ids by slug. */
export async function createDefaultTypes<Slug extends string>(
  admin: LookupAdmin,
  project_slugs: readonly Slug[],
  type?: { name: string; slug: string },
): Promise<Record<Slug, number>> {
  const ids = {} as Record<Slug, number>;
  for (const slug of project_slugs) ids[slug] = await createDefaultType(admin, slug, type);
  return ids;
}

/**
 * A maker of one user's API keys: `key(scopes, project_slug?)` creates one (scoped to the project
 * when given) and answers its value. Named `key <scopes> <project>` unless `name` says otherwise.
 */
export function apiKeyMaker(
  admin: LookupAdmin,
  user_email: string,
  name: (scopes: string[], project_slug?: string) => string = (scopes, project_slug) =>
    `key ${scopes.join(' ')} ${project_slug ?? ''}`,
): (scopes: string[], project_slug?: string) => Promise<string> {
  return async (scopes, project_slug) =>
    (
      await admin.CreateApiKey({
        user_email,
        scopes,
        name: name(scopes, project_slug),
        ...(project_slug ? { project_slug } : {}),
      })
    ).key;
}
