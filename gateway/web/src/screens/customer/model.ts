/**
 * The customer screens' vocabulary: the API's Customer and Organization under short names, and the
 * small helpers the ticket view, the customer and organization pages and the pickers share (who a
 * customer id is, a list of addresses typed by a person, a cache of the customers a screen shows).
 * Customers and organizations have no project context (spec: they are shared by every project).
 */
import { api, call } from '../../api/client';
import type { components } from '../../generated/api';

export type Customer = components['schemas']['Customer'];
export type Organization = components['schemas']['Organization'];

/** A customer chosen in a picker: an existing one, or an address the server finds or creates. */
export type PickedCustomer = { customer: Customer } | { email: string };

/** Who wrote a comment (additive fields; older servers send neither: staff). */
export interface CommentAuthorship {
  author_type?: 'staff' | 'customer';
  customer_id?: number | null;
}

/** The shape the gateway accepts for an address (the server decides the rest). */
const ADDRESS_SHAPE = /^[^\s@<>",;()[\]\\]+@[^\s@<>",;()[\]\\]+\.[^\s@<>",;()[\]\\]+$/;

/** True when `text` (trimmed) looks like one email address. */
export function isEmailAddress(text: string): boolean {
  return ADDRESS_SHAPE.test(text.trim());
}

/** Addresses typed one per line or separated by commas, semicolons or spaces: lower-cased, once each. */
export function parseEmails(text: string): string[] {
  const emails = text
    .split(/[\s,;]+/)
    .map((email) => email.trim().toLowerCase())
    .filter(Boolean);
  return [...new Set(emails)];
}

/** Domains typed the same way ("Example.com, acme.org"). */
export const parseDomains = parseEmails;

/** A 422's messages for a list field and for its items (`emails`, `emails.0`, ...), together. */
export function listErrors(errors: Record<string, string[]>, ...names: string[]): string[] {
  return Object.entries(errors)
    .filter(([key]) => names.some((name) => key === name || key.startsWith(`${name}.`)))
    .flatMap(([, messages]) => messages);
}

/** The address shown for a customer: the primary (first) one, or none once anonymised. */
export function primaryEmail(customer: Pick<Customer, 'emails'>): string | null {
  return customer.emails[0] ?? null;
}

/** "Grace Hopper <grace@example.com>", or the name alone without an address. */
export function customerLabel(customer: Pick<Customer, 'name' | 'emails'>): string {
  const email = primaryEmail(customer);
  return email && email !== customer.name ? `${customer.name} <${email}>` : customer.name;
}

/** The customer page's address. */
export function customerPath(id: number): string {
  return `/customers/${id}`;
}

/** The organization page's address. */
export function organizationPath(id: number): string {
  return `/organizations/${id}`;
}

/**
 * The customers the screens show by id, fetched once per page load (a merged id answers its
 * target). `forget` drops one after a change so the next read is fresh.
 */
const cache = new Map<number, Promise<Customer>>();

export function loadCustomer(id: number): Promise<Customer> {
  let pending = cache.get(id);
  if (!pending) {
    pending = call(api.GET('/customers/{id}', { params: { path: { id } } })).then(
      (answer) => answer.customer,
    );
    pending.catch(() => cache.delete(id));
    cache.set(id, pending);
  }
  return pending;
}

export function rememberCustomer(customer: Customer): void {
  cache.set(customer.id, Promise.resolve(customer));
}

export function forgetCustomer(id: number): void {
  cache.delete(id);
}

/** Customers matching `q` in names and addresses (the first page, as the server orders them). */
export async function searchCustomers(q: string, perPage = 10): Promise<Customer[]> {
  const answer = await call(api.GET('/customers', { params: { query: { q, per_page: perPage } } }));
  for (const customer of answer.customers) rememberCustomer(customer);
  return answer.customers;
}

/** The requester as POST /tickets takes it: by id, or by address (found or created). */
export function requesterBody(picked: PickedCustomer | null) {
  if (!picked) return {};
  return 'customer' in picked ? { requester_id: picked.customer.id } : { requester: { email: picked.email } };
}

/** The CCs: customer ids as `cc`, typed addresses as `cc_emails`. */
export function ccBody(picked: PickedCustomer[]) {
  const ids = picked.flatMap((each) => ('customer' in each ? [each.customer.id] : []));
  const emails = picked.flatMap((each) => ('email' in each ? [each.email] : []));
  return { ...(ids.length ? { cc: ids } : {}), ...(emails.length ? { cc_emails: emails } : {}) };
}

export function pickedLabel(picked: PickedCustomer): string {
  return 'customer' in picked ? customerLabel(picked.customer) : `${picked.email} (new)`;
}

export function samePick(a: PickedCustomer, b: PickedCustomer): boolean {
  if ('customer' in a && 'customer' in b) return a.customer.id === b.customer.id;
  return 'email' in a && 'email' in b && a.email === b.email;
}
