/**
 * The customer use cases: find-or-create by address (race-safe), create, read, list, update,
 * merge and the anonymising delete. Every write records the user id of the caller's principal
 * (created_by / updated_by; null without one). Rules: the proto's comments and docs/decisions.md,
 * "Customers service".
 */
import type pg from 'pg';
import { AppError, FieldErrors, fieldError, inTransaction, newDomainEvent, outboxInsert } from '@tix/kit';
import { pageWindow, paginationOf, type customer, type EventActor } from '@tix/protos';
import {
  CUSTOMER_COLUMNS,
  customerByEmail,
  customerJson,
  LIVE,
  presentCustomer,
  readCustomer,
  type CustomerRow,
} from './customer-rows.js';
import {
  CUSTOMER_LIMITS,
  DELETED_CUSTOMER_NAME,
  checkEmails,
  checkName,
  checkNotes,
  checkSearchText,
  containsPattern,
  domainOf,
  nameForAddress,
  normaliseEmail,
} from './rules.js';

/** Who makes a change: the principal's user id, null for a call without one. */
export type Author = number | null;

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** How many tombstones GetCustomer follows before giving up (merges repoint older tombstones, so 1 is usual). */
const MERGE_HOPS = 10;

export const CUSTOMER_NOT_FOUND = 'Customer not found';

/** 409 for an address another customer holds. */
function addressTaken(email: string): AppError {
  return AppError.conflict(`Email address ${email} belongs to another customer`);
}

/**
 * Takes a transaction lock per key in one sorted order, before a claim of several unique keys
 * (addresses, domains): two claims of the same keys in opposite orders then queue instead of
 * deadlocking (PostgreSQL would abort one, a 500).
 */
export async function lockKeys(
  client: pg.PoolClient,
  namespace: string,
  keys: readonly string[],
): Promise<void> {
  if (keys.length < 2) return;
  await client.query(
    `SELECT pg_advisory_xact_lock(hashtext($1 || ':' || key)) FROM unnest($2::text[]) AS key ORDER BY key`,
    [namespace, keys],
  );
}

/** The organization claiming an address's domain, or null. */
async function organizationForEmail(db: Queryable, email: string): Promise<number | null> {
  const { rows } = await db.query<{ organization_id: number }>(
    'SELECT organization_id FROM organization_domains WHERE domain = $1',
    [domainOf(email)],
  );
  return rows[0]?.organization_id ?? null;
}

/**
 * An organization deleted between the check and the write (the foreign key refuses it): the same
 * 422 as an unknown one, not a 500.
 */
function organizationGone(error: unknown): never {
  const pgError = error as { code?: string; constraint?: string };
  if (pgError.code === '23503' && pgError.constraint === 'customers_organization_id_fkey')
    throw fieldError('organization_id', 'Organization not found');
  throw error;
}

/** 422 unless organization `id` exists. */
async function requireOrganization(db: Queryable, field: string, id: number): Promise<void> {
  const { rowCount } = await db.query('SELECT 1 FROM organizations WHERE id = $1', [id]);
  if (!rowCount) throw fieldError(field, 'Organization not found');
}

/**
 * Gives `emails` to customer `customerId` in order (the first primary), inside the caller's
 * transaction: 409 when one belongs to another customer. An INSERT ... ON CONFLICT DO NOTHING waits
 * for a concurrent claim of the same address to finish, so two claims never both succeed.
 */
async function claimEmails(
  client: pg.PoolClient,
  customerId: number,
  emails: readonly string[],
  author: Author,
): Promise<void> {
  await lockKeys(client, 'customer_email', emails);
  for (const email of emails) {
    const inserted = await client.query(
      `INSERT INTO customer_emails (email, customer_id, created_by) VALUES ($1, $2, $3)
       ON CONFLICT (email) DO NOTHING`,
      [email, customerId, author],
    );
    if (inserted.rowCount) continue;
    const { rows } = await client.query<{ customer_id: number }>(
      'SELECT customer_id FROM customer_emails WHERE email = $1',
      [email],
    );
    if (rows[0]?.customer_id !== customerId) throw addressTaken(email);
  }
  // Two statements: a non-deferrable unique index is checked row by row, so the old primary is
  // cleared before the new one is set.
  await client.query(`UPDATE customer_emails SET "primary" = false WHERE customer_id = $1 AND email <> $2`, [
    customerId,
    emails[0],
  ]);
  await client.query(`UPDATE customer_emails SET "primary" = true WHERE customer_id = $1 AND email = $2`, [
    customerId,
    emails[0],
  ]);
}

async function insertCustomer(
  client: pg.PoolClient,
  values: { name: string; notes: string; organizationId: number | null },
  author: Author,
): Promise<number> {
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO customers (name, notes, organization_id, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $4) RETURNING id`,
    [values.name, values.notes, values.organizationId, author],
  );
  return rows[0]!.id;
}

async function mustRead(db: Queryable, id: number): Promise<CustomerRow> {
  const row = await readCustomer(db, id);
  if (!row) throw AppError.internal(`customer ${id} vanished`);
  return row;
}

/** Thrown inside a find-or-create transaction when another call claimed the address first. */
class AddressClaimed extends Error {}

/**
 * The customer holding `email`, creating it (with `name`, in the organization of the address's
 * domain) when none does. Race-safe: the creating transaction claims the address with ON CONFLICT
 * DO NOTHING; losing the race rolls it back and reads the winner's customer (one retry, for a
 * winner deleted in between).
 */
async function findOrCreateOne(
  pool: pg.Pool,
  email: string,
  name: string,
  author: Author,
): Promise<CustomerRow> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const found = await customerByEmail(pool, email);
    if (found) return found;
    try {
      const id = await inTransaction(pool, async (client) => {
        const organizationId = await organizationForEmail(client, email);
        const created = await insertCustomer(client, { name, notes: '', organizationId }, author);
        const claimed = await client.query(
          `INSERT INTO customer_emails (email, customer_id, "primary", created_by) VALUES ($1, $2, true, $3)
           ON CONFLICT (email) DO NOTHING`,
          [email, created, author],
        );
        if (!claimed.rowCount) throw new AddressClaimed();
        return created;
      });
      return await mustRead(pool, id);
    } catch (error) {
      if (!(error instanceof AddressClaimed)) throw error;
    }
  }
  throw AppError.unavailable('The address is being changed concurrently; try again');
}

/** FindOrCreateCustomers: 400 naming every bad address; one customer per holder, in request order. */
export async function findOrCreateCustomers(
  pool: pg.Pool,
  addresses: readonly customer.CustomerAddress__Output[],
  author: Author,
): Promise<CustomerRow[]> {
  if (addresses.length > CUSTOMER_LIMITS.addresses)
    throw AppError.badRequest(`At most ${CUSTOMER_LIMITS.addresses} addresses`, {
      addresses: [`At most ${CUSTOMER_LIMITS.addresses} addresses`],
    });
  const errors: Record<string, string[]> = {};
  const wanted = new Map<string, string>();
  addresses.forEach((address, index) => {
    const email = normaliseEmail(address.email);
    if (email === null) errors[`addresses[${index}].email`] = ['Must be a valid email address'];
    else if (!wanted.has(email)) wanted.set(email, nameForAddress(email, address.name));
  });
  if (Object.keys(errors).length > 0) throw AppError.badRequest('Invalid email address', errors);
  const customers: CustomerRow[] = [];
  for (const [email, name] of wanted) {
    const row = await findOrCreateOne(pool, email, name, author);
    if (!customers.some((known) => known.id === row.id)) customers.push(row);
  }
  return customers;
}

/** CreateCustomer: 422 on a bad name, address, notes or organization; 409 on a taken address. */
export async function createCustomer(
  pool: pg.Pool,
  request: customer.CreateCustomerRequest__Output,
  author: Author,
): Promise<CustomerRow> {
  const errors = new FieldErrors();
  const name = checkName(errors, 'name', request.name);
  const emails = checkEmails(errors, 'emails', request.emails);
  const notes = checkNotes(errors, 'notes', request.notes);
  errors.throwIfAny();
  const id = await inTransaction(pool, async (client) => {
    let organizationId: number | null;
    if (request.organization_id !== undefined) {
      await requireOrganization(client, 'organization_id', request.organization_id);
      organizationId = request.organization_id;
    } else organizationId = await organizationForEmail(client, emails[0]!);
    const created = await insertCustomer(client, { name, notes, organizationId }, author);
    await claimEmails(client, created, emails, author);
    return created;
  }).catch(organizationGone);
  return mustRead(pool, id);
}

/** GetCustomer: a merged one answers its target (following at most MERGE_HOPS); deleted: 404. */
export async function getCustomer(pool: pg.Pool, id: number): Promise<CustomerRow> {
  let row = await readCustomer(pool, id);
  for (let hop = 0; row && row.merged_into !== null && hop < MERGE_HOPS; hop++)
    row = await readCustomer(pool, row.merged_into);
  if (!row || row.deleted || row.merged_into !== null) throw AppError.notFound(CUSTOMER_NOT_FOUND);
  return row;
}

/** BatchGetCustomers: the rows as stored (tombstones and anonymised ones too), unknown ids left out. */
export async function batchGetCustomers(pool: pg.Pool, ids: readonly number[]): Promise<CustomerRow[]> {
  if (ids.length > CUSTOMER_LIMITS.batchIds)
    throw AppError.badRequest(`At most ${CUSTOMER_LIMITS.batchIds} ids`, {
      ids: [`At most ${CUSTOMER_LIMITS.batchIds} ids`],
    });
  const unique = [...new Set(ids)].filter((id) => Number.isInteger(id) && id > 0);
  if (unique.length === 0) return [];
  const { rows } = await pool.query<CustomerRow>(
    `SELECT ${CUSTOMER_COLUMNS} FROM customers c WHERE c.id = ANY($1::int[])`,
    [unique],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return unique.flatMap((id) => byId.get(id) ?? []);
}

/** ListCustomers: live customers, newest first; `email` exact, `q` in name and addresses. */
export async function listCustomers(pool: pg.Pool, request: customer.ListCustomersRequest__Output) {
  const window = pageWindow(request.page);
  const conditions = [LIVE];
  const values: unknown[] = [];
  if (request.email !== undefined) {
    values.push(checkSearchText('email', request.email, CUSTOMER_LIMITS.email).toLowerCase());
    conditions.push(`c.id IN (SELECT customer_id FROM customer_emails WHERE email = $${values.length})`);
  }
  const q = checkSearchText('q', request.q, CUSTOMER_LIMITS.q);
  if (q !== '') {
    values.push(containsPattern(q));
    const p = `$${values.length}`;
    conditions.push(
      `(c.name ILIKE ${p} OR c.id IN (SELECT customer_id FROM customer_emails WHERE email ILIKE ${p}))`,
    );
  }
  if (request.organization_id !== undefined) {
    values.push(request.organization_id);
    conditions.push(`c.organization_id = $${values.length}`);
  }
  const where = conditions.join(' AND ');
  const [page, total] = await Promise.all([
    pool.query<CustomerRow>(
      `SELECT ${CUSTOMER_COLUMNS} FROM customers c WHERE ${where} ORDER BY c.id DESC
       LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, window.perPage, window.offset],
    ),
    pool.query<{ count: number }>(`SELECT count(*)::int AS count FROM customers c WHERE ${where}`, values),
  ]);
  return {
    customers: page.rows.map(presentCustomer),
    pagination: paginationOf(total.rows[0]?.count ?? 0, window),
  };
}

/**
 * A customer that may be changed, locked: 404 when unknown or deleted, 422 (naming `field`) when it
 * is a merged tombstone.
 */
async function lockLive(client: pg.PoolClient, id: number, field: string): Promise<CustomerRow> {
  const row = await readCustomer(client, id, true);
  if (!row || row.deleted) throw AppError.notFound(CUSTOMER_NOT_FOUND);
  if (row.merged_into !== null)
    throw fieldError(field, `Customer ${id} was merged into customer ${row.merged_into}`);
  return row;
}

/** UpdateCustomer: each present field replaces; addresses as CreateCustomer's (the first primary). */
export async function updateCustomer(
  pool: pg.Pool,
  request: customer.UpdateCustomerRequest__Output,
  author: Author,
): Promise<CustomerRow> {
  const errors = new FieldErrors();
  const name = request.name === undefined ? undefined : checkName(errors, 'name', request.name);
  const notes = request.notes === undefined ? undefined : checkNotes(errors, 'notes', request.notes);
  const emails = request.emails ? checkEmails(errors, 'emails', request.emails.values) : undefined;
  errors.throwIfAny();
  await inTransaction(pool, async (client) => {
    await lockLive(client, request.id, 'id');
    const organization = request.organization_id;
    if (organization?.value !== undefined)
      await requireOrganization(client, 'organization_id', organization.value);
    if (emails) {
      await client.query('DELETE FROM customer_emails WHERE customer_id = $1 AND email <> ALL($2::text[])', [
        request.id,
        emails,
      ]);
      await claimEmails(client, request.id, emails, author);
    }
    await client.query(
      `UPDATE customers SET name = COALESCE($2, name), notes = COALESCE($3, notes),
         organization_id = CASE WHEN $4 THEN $5 ELSE organization_id END,
         updated_at = now(), updated_by = $6
       WHERE id = $1`,
      [
        request.id,
        name ?? null,
        notes ?? null,
        organization !== null && organization !== undefined,
        organization?.value ?? null,
        author,
      ],
    );
  }).catch(organizationGone);
  return mustRead(pool, request.id);
}

/** The events of this service: `source` of every envelope. */
export const EVENT_SOURCE = 'customers';

/**
 * MergeCustomers: the source's addresses (and organization, when the target has none) move to the
 * target; the source becomes a tombstone pointing at it, and tombstones that pointed at the source
 * now point at the target (so GetCustomer follows one hop). 422 into itself, from or into a deleted
 * or merged customer. In the same transaction, `customer.merged` goes to the outbox: the target as
 * the API returns it, plus `source_id` and `merged_ids` (the source and every older tombstone now
 * pointing at the target), so the ticket service re-points their tickets (docs/decisions.md, "A
 * merged customer's tickets follow the merge (issue 28)").
 */
export async function mergeCustomers(
  pool: pg.Pool,
  request: customer.MergeCustomersRequest__Output,
  actor: EventActor,
): Promise<CustomerRow> {
  const { source_id: sourceId, target_id: targetId } = request;
  const author: Author = actor.user_id;
  if (sourceId === targetId) throw fieldError('target_id', 'A customer cannot be merged into itself');
  await inTransaction(pool, async (client) => {
    // Both rows locked in id order, so two opposite merges cannot deadlock.
    const locked = new Map<number, CustomerRow | undefined>();
    for (const id of [sourceId, targetId].sort((a, b) => a - b))
      locked.set(id, await readCustomer(client, id, true));
    for (const [id, field] of [
      [sourceId, 'source_id'],
      [targetId, 'target_id'],
    ] as const) {
      const row = locked.get(id);
      if (!row) throw fieldError(field, 'Customer not found');
      if (row.deleted) throw fieldError(field, `Customer ${id} is deleted`);
      if (row.merged_into !== null)
        throw fieldError(field, `Customer ${id} was already merged into customer ${row.merged_into}`);
    }
    const source = locked.get(sourceId)!;
    await client.query(
      `UPDATE customer_emails SET customer_id = $2, "primary" = false WHERE customer_id = $1`,
      [sourceId, targetId],
    );
    await client.query(
      `UPDATE customers SET organization_id = COALESCE(organization_id, $2), updated_at = now(), updated_by = $3
       WHERE id = $1`,
      [targetId, source.organization_id, author],
    );
    const { rows: merged } = await client.query<{ id: number }>(
      `UPDATE customers SET merged_into = $2, updated_at = now(), updated_by = $3
       WHERE id = $1 OR merged_into = $1 RETURNING id`,
      [sourceId, targetId, author],
    );
    const mergedIds = [
      sourceId,
      ...merged
        .map((row) => row.id)
        .filter((id) => id !== sourceId)
        .sort((a, b) => a - b),
    ];
    const target = await mustRead(client, targetId);
    await client.query(
      outboxInsert([
        newDomainEvent(
          'customer.merged',
          { ...customerJson(target), source_id: sourceId, merged_ids: mergedIds },
          { source: EVENT_SOURCE, actor, occurredAt: target.updated_at },
        ),
      ]),
    );
  });
  return mustRead(pool, targetId);
}

/** DeleteCustomer: anonymised in place; 404 when unknown or already deleted; 422 for a tombstone. */
export async function deleteCustomer(pool: pg.Pool, id: number, author: Author): Promise<void> {
  await inTransaction(pool, async (client) => {
    await lockLive(client, id, 'id');
    await client.query('DELETE FROM customer_emails WHERE customer_id = $1', [id]);
    await client.query(
      `UPDATE customers SET name = $2, notes = '', organization_id = NULL, deleted = true,
         updated_at = now(), updated_by = $3
       WHERE id = $1`,
      [id, DELETED_CUSTOMER_NAME, author],
    );
  });
}
