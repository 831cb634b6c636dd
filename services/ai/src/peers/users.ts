/**
 * What the assistant reads of the lookup service about people: their names, for the words it shows
 * (a reviewer, a predicted assignee).
 */
import type { Caller, ServiceClient } from '@tix/kit';

/**
 * Users' names by id, from lookup (one call; ids absent from the answer stay unnamed). `caller` is
 * the request's, when there is one (a worker has none).
 */
export async function userNames(
  deps: { lookup: Pick<ServiceClient<'lookup'>, 'GetUsers'> },
  ids: (number | null)[],
  caller?: Pick<Caller, 'correlationId'>,
): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const { users } = await deps.lookup.GetUsers(
    { ids: wanted },
    caller ? { correlationId: caller.correlationId } : {},
  );
  return new Map(users.map((user) => [user.id, user.name]));
}
