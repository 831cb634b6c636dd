/**
 * The organization use cases. An organization's domains place new customers in it (customers.ts);
 * its name and each domain belong to one organization (409). Deleting one leaves its customers
 * without an organization.
 */
import type pg from 'pg';
import { AppError, FieldErrors, inTransaction } from '@tix/kit';
import { pageWindow, paginationOf, type customer } from '@tix/protos';
import { LIVE } from './customer-rows.js';
import {
  CUSTOMER_LIMITS,
  checkDomains,
  checkName,
  checkNotes,
  checkSearchText,
  containsPattern,
} from './rules.js';
import { lockKeys, type Author } from './customers.js';

interface OrganizationRow {
  id: number;
  name: string;
  notes: string;
  created_at: Date;
  updated_at: Date;
  domains: string[];
  customer_count: number;
}

const ORGANIZATION_COLUMNS = `o.id, o.name, o.notes, o.created_at, o.updated_at,
  COALESCE((SELECT array_agg(d.domain ORDER BY d.domain) FROM organization_domains d
            WHERE d.organization_id = o.id), '{}') AS domains,
  (SELECT count(*)::int FROM customers c WHERE c.organization_id = o.id AND ${LIVE}) AS customer_count`;

export const ORGANIZATION_NOT_FOUND = 'Organization not found';

function presentOrganization(row: OrganizationRow): customer.Organization {
  return {
    id: row.id,
    name: row.name,
    domains: row.domains,
    notes: row.notes,
    customer_count: row.customer_count,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

async function readOrganization(db: Queryable, id: number): Promise<customer.Organization> {
  const { rows } = await db.query<OrganizationRow>(
    `SELECT ${ORGANIZATION_COLUMNS} FROM organizations o WHERE o.id = $1`,
    [id],
  );
  if (!rows[0]) throw AppError.notFound(ORGANIZATION_NOT_FOUND);
  return presentOrganization(rows[0]);
}

/** 409 for a name another organization has (case-insensitively), from the unique index's violation. */
function nameConflict(error: unknown): never {
  const pgError = error as { code?: string; constraint?: string };
  if (pgError.code === '23505' && pgError.constraint === 'organizations_name_key')
    throw AppError.conflict('An organization with this name exists');
  throw error;
}

/** Gives the organization exactly `domains`: 409 when one belongs to another organization. */
async function replaceDomains(client: pg.PoolClient, id: number, domains: readonly string[]): Promise<void> {
  await client.query(
    'DELETE FROM organization_domains WHERE organization_id = $1 AND domain <> ALL($2::text[])',
    [id, domains],
  );
  await lockKeys(client, 'organization_domain', domains);
  for (const domain of domains) {
    const inserted = await client.query(
      `INSERT INTO organization_domains (domain, organization_id) VALUES ($1, $2) ON CONFLICT (domain) DO NOTHING`,
      [domain, id],
    );
    if (inserted.rowCount) continue;
    const { rows } = await client.query<{ organization_id: number }>(
      'SELECT organization_id FROM organization_domains WHERE domain = $1',
      [domain],
    );
    if (rows[0]?.organization_id !== id)
      throw AppError.conflict(`Domain ${domain} belongs to another organization`);
  }
}

export function getOrganization(pool: pg.Pool, id: number): Promise<customer.Organization> {
  return readOrganization(pool, id);
}

/** ListOrganizations: by name; `q` in the name and domains. */
export async function listOrganizations(pool: pg.Pool, request: customer.ListOrganizationsRequest__Output) {
  const window = pageWindow(request.page);
  const q = checkSearchText('q', request.q, CUSTOMER_LIMITS.q);
  const values: unknown[] = [];
  let where = 'true';
  if (q !== '') {
    values.push(containsPattern(q));
    where = `(o.name ILIKE $1 OR o.id IN (SELECT organization_id FROM organization_domains WHERE domain ILIKE $1))`;
  }
  const [page, total] = await Promise.all([
    pool.query<OrganizationRow>(
      `SELECT ${ORGANIZATION_COLUMNS} FROM organizations o WHERE ${where} ORDER BY lower(o.name), o.id
       LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, window.perPage, window.offset],
    ),
    pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM organizations o WHERE ${where}`,
      values,
    ),
  ]);
  return {
    organizations: page.rows.map(presentOrganization),
    pagination: paginationOf(total.rows[0]?.count ?? 0, window),
  };
}

export async function createOrganization(
  pool: pg.Pool,
  request: customer.CreateOrganizationRequest__Output,
  author: Author,
): Promise<customer.Organization> {
  const errors = new FieldErrors();
  const name = checkName(errors, 'name', request.name);
  const domains = checkDomains(errors, 'domains', request.domains);
  const notes = checkNotes(errors, 'notes', request.notes);
  errors.throwIfAny();
  const id = await inTransaction(pool, async (client) => {
    const { rows } = await client
      .query<{ id: number }>(
        `INSERT INTO organizations (name, notes, created_by, updated_by) VALUES ($1, $2, $3, $3) RETURNING id`,
        [name, notes, author],
      )
      .catch(nameConflict);
    await replaceDomains(client, rows[0]!.id, domains);
    return rows[0]!.id;
  });
  return readOrganization(pool, id);
}

export async function updateOrganization(
  pool: pg.Pool,
  request: customer.UpdateOrganizationRequest__Output,
  author: Author,
): Promise<customer.Organization> {
  const errors = new FieldErrors();
  const name = request.name === undefined ? null : checkName(errors, 'name', request.name);
  const notes = request.notes === undefined ? null : checkNotes(errors, 'notes', request.notes);
  const domains = request.domains ? checkDomains(errors, 'domains', request.domains.values) : null;
  errors.throwIfAny();
  await inTransaction(pool, async (client) => {
    const { rowCount } = await client
      .query(
        `UPDATE organizations SET name = COALESCE($2, name), notes = COALESCE($3, notes),
           updated_at = now(), updated_by = $4
         WHERE id = $1`,
        [request.id, name, notes, author],
      )
      .catch(nameConflict);
    if (!rowCount) throw AppError.notFound(ORGANIZATION_NOT_FOUND);
    if (domains) await replaceDomains(client, request.id, domains);
  });
  return readOrganization(pool, request.id);
}

/**
 * DeleteOrganization: its customers stay, with organization_id null: cleared here first so their
 * rows record who changed them (the foreign key's ON DELETE SET NULL backs it).
 */
export async function deleteOrganization(pool: pg.Pool, id: number, author: Author): Promise<void> {
  await inTransaction(pool, async (client) => {
    // Its customers locked in id order, as a merge locks its two, so the two never deadlock.
    await client.query('SELECT id FROM customers WHERE organization_id = $1 ORDER BY id FOR UPDATE', [id]);
    await client.query(
      'UPDATE customers SET organization_id = NULL, updated_at = now(), updated_by = $2 WHERE organization_id = $1',
      [id, author],
    );
    const { rowCount } = await client.query('DELETE FROM organizations WHERE id = $1', [id]);
    if (!rowCount) throw AppError.notFound(ORGANIZATION_NOT_FOUND);
  });
}
