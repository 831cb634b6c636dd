/**
 * The requester and cc of a ticket write, from the body to customer ids (docs/decisions.md,
 * "Customers at the gateway"): `requester` and `cc_emails` are addresses, found or created through
 * FindOrCreateCustomers; `requester_id` and `cc` are ids, checked through BatchGetCustomers (an
 * unknown or deleted customer is 422 naming the field; a merged one stands for its target). The
 * customer service is called only when the body names someone.
 */
import { AppError, type OutgoingContext } from '@tix/kit';
import type { customer } from '@tix/protos';
import type { RequiredServices } from '../../services.js';
import type { TicketPeople } from './tickets.mapping.js';

/** The fields of a ticket write that name people (tickets.schemas.ts). */
export interface PeopleFields {
  requester_id?: number | null;
  requester?: { email: string; name?: string };
  cc?: number[];
  cc_emails?: string[];
}

export const unknownCustomersMessage = (ids: readonly number[]) =>
  ids.length === 1 ? `No customer with id ${ids[0]}` : `No customers with ids ${ids.join(', ')}`;

/** The customer ids the body's requester and cc come to; fields it leaves out stay undefined. */
export async function resolveTicketPeople(
  body: PeopleFields,
  services: Pick<RequiredServices, 'customers'>,
  call: OutgoingContext,
): Promise<TicketPeople> {
  const people: TicketPeople = {};
  const ids = [...(typeof body.requester_id === 'number' ? [body.requester_id] : []), ...(body.cc ?? [])];
  const current = ids.length === 0 ? new Map<number, number>() : await currentIds(ids, services, call);
  const errors: Record<string, string[]> = {};
  if (typeof body.requester_id === 'number') {
    const id = current.get(body.requester_id);
    if (id === undefined) errors.requester_id = [unknownCustomersMessage([body.requester_id])];
    else people.requester_id = id;
  } else if (body.requester_id === null) {
    people.requester_id = null;
  }
  let cc: number[] | undefined;
  if (body.cc !== undefined) {
    const unknown = body.cc.filter((id) => !current.has(id));
    if (unknown.length > 0) errors.cc = [unknownCustomersMessage(unknown)];
    cc = body.cc.map((id) => current.get(id)!);
  }
  if (Object.keys(errors).length > 0) throw AppError.validation(errors);

  const addresses: customer.CustomerAddress[] = [
    ...(body.requester ? [{ email: body.requester.email, name: body.requester.name ?? '' }] : []),
    ...(body.cc_emails ?? []).map((email) => ({ email, name: '' })),
  ];
  if (addresses.length > 0) {
    const found = await services.customers.FindOrCreateCustomers({ addresses }, call);
    const byEmail = new Map<string, number>();
    for (const one of found.customers) for (const email of one.emails) byEmail.set(email, one.id);
    const idOf = (email: string): number => {
      const id = byEmail.get(email);
      if (id === undefined) throw AppError.internal('the customer service left out an address it was given');
      return id;
    };
    if (body.requester) people.requester_id = idOf(body.requester.email);
    if (body.cc_emails) cc = [...(cc ?? []), ...body.cc_emails.map(idOf)];
  }
  if (cc !== undefined) people.cc = [...new Set(cc)];
  return people;
}

/** Each known, live id -> the id it stands for now (a merged customer's target). */
async function currentIds(
  ids: readonly number[],
  services: Pick<RequiredServices, 'customers'>,
  call: OutgoingContext,
): Promise<Map<number, number>> {
  const { customers } = await services.customers.BatchGetCustomers({ ids: [...new Set(ids)] }, call);
  const current = new Map<number, number>();
  for (const one of customers) {
    if (one.deleted) continue;
    current.set(one.id, one.merged_into ?? one.id);
  }
  return current;
}
