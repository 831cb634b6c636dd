/** Reading customer rows (with their addresses, primary first) and presenting them as messages. */
import type pg from 'pg';
import type { customer, CustomerJson } from '@tix/protos';

export interface CustomerRow {
  id: number;
  name: string;
  notes: string;
  organization_id: number | null;
  merged_into: number | null;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
  emails: string[];
}

/** Every column of a customer plus its addresses (primary first, then in the order they were added). */
export const CUSTOMER_COLUMNS = `c.id, c.name, c.notes, c.organization_id, c.merged_into, c.deleted,
  c.created_at, c.updated_at,
  COALESCE((SELECT array_agg(e.email ORDER BY e."primary" DESC, e.id) FROM customer_emails e
            WHERE e.customer_id = c.id), '{}') AS emails`;

/** A customer live for reads: neither deleted nor merged. */
export const LIVE = 'NOT c.deleted AND c.merged_into IS NULL';

export function presentCustomer(row: CustomerRow): customer.Customer {
  return {
    id: row.id,
    name: row.name,
    emails: row.emails,
    ...(row.organization_id === null ? {} : { organization_id: row.organization_id }),
    notes: row.notes,
    ...(row.merged_into === null ? {} : { merged_into: row.merged_into }),
    deleted: row.deleted,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A customer as the public API returns it (the gateway's presenter of the message), for event data. */
export function customerJson(row: CustomerRow): CustomerJson {
  return {
    id: row.id,
    name: row.name,
    emails: row.emails,
    organization_id: row.organization_id,
    notes: row.notes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** One customer as stored (deleted and merged ones included), or undefined. */
export async function readCustomer(
  db: Queryable,
  id: number,
  lock = false,
): Promise<CustomerRow | undefined> {
  const { rows } = await db.query<CustomerRow>(
    `SELECT ${CUSTOMER_COLUMNS} FROM customers c WHERE c.id = $1${lock ? ' FOR UPDATE OF c' : ''}`,
    [id],
  );
  return rows[0];
}

/** The customer holding an address (stored form), or undefined. */
export async function customerByEmail(db: Queryable, email: string): Promise<CustomerRow | undefined> {
  const { rows } = await db.query<CustomerRow>(
    `SELECT ${CUSTOMER_COLUMNS} FROM customers c
     WHERE c.id = (SELECT customer_id FROM customer_emails WHERE email = $1)`,
    [email],
  );
  return rows[0];
}
