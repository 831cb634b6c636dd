/**
 * The customer and organization operations (issue 28, additive): each validated by
 * customers.schemas.ts, then one CustomerService call, then the JSON of @tix/contract's Customer and
 * Organization. Customers are fleet-wide, not per project (protos tix/customer/v1), so these take no
 * project context; a customer's tickets are the project's, listed as GET /tickets lists them. Who may
 * do what (docs/decisions.md, "Customers at the gateway"): `customers:read` / any signed-in user reads;
 * `customers:write` / agents write; merging needs a team lead and deleting an admin on both hosts (a
 * key never exceeds its owner, as the role table says for every scope).
 */
import { AppError } from '@tix/kit';
import { roleAtLeast, type customer, type Principal, type Role } from '@tix/protos';
import { roleTooLowMessage } from '../../middleware/require-access.js';
import {
  customerSchema,
  organizationSchema,
  paginationSchema,
  ticketSchema,
} from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { presentCustomer, presentOrganization } from '../../resources/presenters/customers.js';
import { confirmation, confirmed, count, json, linked, single } from '../../resources/responses.js';
import { z } from '../../resources/zod-openapi.js';
import { operationGroup, type Operation } from '../operation.js';
import {
  createCustomerBody,
  createOrganizationBody,
  customerIdParams,
  listCustomersQuery,
  listOrganizationsQuery,
  mergeCustomerBody,
  organizationIdParams,
  updateCustomerBody,
  updateOrganizationBody,
} from './customers.schemas.js';
import { listTickets, pageLinks } from './tickets.js';
import { listTicketsQuery } from './tickets.schemas.js';

/** The least role that may merge customers, and delete customers and organizations. */
export const CUSTOMER_ROLES = { merge: 'team_lead', delete: 'admin' } as const satisfies Record<string, Role>;

/**
 * The role an operation needs beyond its scope, on the API host too: the key's owner's role (the
 * session host has checked it already, from the declaration).
 */
function requireRole(principal: Principal, needed: Role): void {
  if (!roleAtLeast(principal.role, needed))
    throw AppError.permissionDenied(roleTooLowMessage(principal.role, needed));
}

/** A page of a customer or organization list: `{ <key>: [...], count, pagination }`. */
function pageOf<Item>(
  key: string,
  items: Item[],
  pagination: { total: number; page: number; per_page: number; total_pages: number } | null,
) {
  if (!pagination) throw AppError.internal('the customer service answered a page without pagination');
  const { total, page, per_page, total_pages } = pagination;
  return { [key]: items, count: items.length, pagination: { total, page, per_page, total_pages } };
}

/** An organization_id change: omitted -> absent (unchanged), null -> `{}` (none), n -> `{ value: n }`. */
function organizationChange(value: number | null | undefined) {
  if (value === undefined) return undefined;
  return value === null ? {} : { value };
}

const customerOperation = operationGroup({ hosts: ['api', 'app'], project: 'none', tag: 'Customers' });
const customerTicketsOperation = operationGroup({
  hosts: ['api', 'app'],
  project: 'required',
  tag: 'Customers',
});

const listData = (key: string, item: z.ZodType, description: string) =>
  z.object({
    [key]: z.array(item),
    count: count.meta({ description: `${description} on this page.` }),
    pagination: paginationSchema,
  });

export const CUSTOMER_OPERATIONS: Operation[] = [
  customerOperation({
    method: 'get',
    path: '/customers',
    access: { scope: 'customers:read', role: 'viewer' },
    request: { query: listCustomersQuery, strictQuery: true },
    operationId: 'listCustomers',
    summary: 'List, search or find customers',
    success: linked(
      json(
        200,
        'A page of customers, newest first; with `email`, the one holding that address (or none).',
        listData('customers', customerSchema, 'Customers'),
        {
          customers: [EXAMPLES.customer],
          count: 1,
          pagination: { total: 1, page: 1, per_page: 50, total_pages: 1 },
        },
      ),
    ),
    errors: [400],
    async handle({ query, given, services, call }) {
      const page = await services.customers.ListCustomers(
        {
          page: { page: query.page, per_page: query.per_page },
          ...(query.email === undefined ? {} : { email: query.email }),
          ...(query.q === undefined ? {} : { q: query.q }),
          ...(query.organization_id === undefined ? {} : { organization_id: query.organization_id }),
        },
        call,
      );
      const data = pageOf('customers', page.customers.map(presentCustomer), page.pagination);
      return { data, links: pageLinks('/customers', given, data.pagination) };
    },
  }),

  customerOperation({
    method: 'post',
    path: '/customers',
    access: { scope: 'customers:write', role: 'agent' },
    request: { body: createCustomerBody },
    bodyExample: {
      name: 'Grace Hopper',
      emails: ['grace@example.com'],
      notes: 'Prefers mail in the morning.',
    },
    operationId: 'createCustomer',
    summary: 'Create a customer',
    success: single(201, 'The created customer.', 'customer', customerSchema, EXAMPLES.customer),
    errors: [409, 422],
    async handle({ body, services, call }) {
      const created = await services.customers.CreateCustomer(
        {
          name: body.name,
          emails: body.emails,
          ...(typeof body.organization_id === 'number' ? { organization_id: body.organization_id } : {}),
          notes: body.notes ?? '',
        },
        call,
      );
      return {
        data: { customer: presentCustomer(created) },
        status: 201,
        location: `/customers/${created.id}`,
      };
    },
  }),

  customerOperation({
    method: 'get',
    path: '/customers/:id',
    access: { scope: 'customers:read', role: 'viewer' },
    request: { params: customerIdParams },
    operationId: 'getCustomer',
    summary: 'Get a customer',
    success: single(
      200,
      'The customer (a merged one answers the customer it was merged into).',
      'customer',
      customerSchema,
      EXAMPLES.customer,
    ),
    errors: [400, 404],
    async handle({ params, services, call }) {
      return {
        data: { customer: presentCustomer(await services.customers.GetCustomer({ id: params.id }, call)) },
      };
    },
  }),

  customerOperation({
    method: 'put',
    path: '/customers/:id',
    access: { scope: 'customers:write', role: 'agent' },
    request: { params: customerIdParams, body: updateCustomerBody },
    bodyExample: { name: 'Grace B. Hopper', emails: ['grace@example.com', 'g.hopper@example.org'] },
    operationId: 'updateCustomer',
    summary: 'Update a customer',
    success: single(200, 'The updated customer.', 'customer', customerSchema, EXAMPLES.customer),
    errors: [400, 404, 409, 422],
    async handle({ params, body, services, call }) {
      const request: customer.UpdateCustomerRequest = {
        id: params.id,
        ...(body.name === undefined ? {} : { name: body.name }),
        ...(body.emails === undefined ? {} : { emails: { values: body.emails } }),
        ...(body.organization_id === undefined
          ? {}
          : { organization_id: organizationChange(body.organization_id) }),
        ...(body.notes === undefined ? {} : { notes: body.notes }),
      };
      return { data: { customer: presentCustomer(await services.customers.UpdateCustomer(request, call)) } };
    },
  }),

  customerOperation({
    method: 'delete',
    path: '/customers/:id',
    access: { scope: 'customers:write', role: CUSTOMER_ROLES.delete },
    request: { params: customerIdParams },
    operationId: 'deleteCustomer',
    summary: 'Delete (anonymise) a customer',
    success: confirmation('Customer deleted'),
    errors: [400, 404],
    handle({ params, principal, services, call }) {
      requireRole(principal, CUSTOMER_ROLES.delete);
      return confirmed(services.customers.DeleteCustomer({ id: params.id }, call));
    },
  }),

  customerOperation({
    method: 'post',
    path: '/customers/:id/merge',
    access: { scope: 'customers:write', role: CUSTOMER_ROLES.merge },
    request: { params: customerIdParams, body: mergeCustomerBody },
    bodyExample: { target_id: 5 },
    operationId: 'mergeCustomer',
    summary: 'Merge a customer into another',
    success: single(
      200,
      'The target customer, now holding both addresses.',
      'customer',
      customerSchema,
      EXAMPLES.customer,
    ),
    errors: [400, 404, 422],
    async handle({ params, body, principal, services, call }) {
      requireRole(principal, CUSTOMER_ROLES.merge);
      const target = await services.customers.MergeCustomers(
        { source_id: params.id, target_id: body.target_id },
        call,
      );
      return { data: { customer: presentCustomer(target) } };
    },
  }),

  customerTicketsOperation({
    method: 'get',
    path: '/customers/:id/tickets',
    access: { scope: 'tickets:read', role: 'viewer' },
    request: {
      params: customerIdParams,
      query: listTicketsQuery.omit({ customer_id: true, requester_id: true }),
      strictQuery: true,
    },
    operationId: 'listCustomerTickets',
    summary: "List a customer's tickets in the project",
    success: linked(
      json(
        200,
        'A page of the tickets the customer requested or is copied on (all matches with `q`), as GET /tickets answers.',
        z.object({
          tickets: z.array(ticketSchema),
          pagination: paginationSchema.optional(),
          next_cursor: z.string().nullable().optional(),
        }),
        { tickets: [{ ...EXAMPLES.ticket, requester_id: 5 }], pagination: EXAMPLES.pagination },
      ),
    ),
    errors: [400, 404],
    async handle({ params, query, given, services, project, principal, call }) {
      // 404 for no such customer; a merged one answers its target, whose tickets these are.
      const found = await services.customers.GetCustomer({ id: params.id }, call);
      return listTickets(
        { query: { ...query, customer_id: found.id }, given, services, project, principal, call },
        `/customers/${params.id}/tickets`,
      );
    },
  }),
];

const organizationOperation = operationGroup({ hosts: ['api', 'app'], project: 'none', tag: 'Customers' });

export const ORGANIZATION_OPERATIONS: Operation[] = [
  organizationOperation({
    method: 'get',
    path: '/organizations',
    access: { scope: 'customers:read', role: 'viewer' },
    request: { query: listOrganizationsQuery, strictQuery: true },
    operationId: 'listOrganizations',
    summary: 'List or search organizations',
    success: linked(
      json(
        200,
        'A page of organizations, by name.',
        listData('organizations', organizationSchema, 'Organizations'),
        {
          organizations: [EXAMPLES.organization],
          count: 1,
          pagination: { total: 1, page: 1, per_page: 50, total_pages: 1 },
        },
      ),
    ),
    errors: [400],
    async handle({ query, given, services, call }) {
      const page = await services.customers.ListOrganizations(
        {
          page: { page: query.page, per_page: query.per_page },
          ...(query.q === undefined ? {} : { q: query.q }),
        },
        call,
      );
      const data = pageOf('organizations', page.organizations.map(presentOrganization), page.pagination);
      return { data, links: pageLinks('/organizations', given, data.pagination) };
    },
  }),

  organizationOperation({
    method: 'post',
    path: '/organizations',
    access: { scope: 'customers:write', role: 'agent' },
    request: { body: createOrganizationBody },
    bodyExample: { name: 'Acme Corp', domains: ['example.com'] },
    operationId: 'createOrganization',
    summary: 'Create an organization',
    success: single(
      201,
      'The created organization.',
      'organization',
      organizationSchema,
      EXAMPLES.organization,
    ),
    errors: [409, 422],
    async handle({ body, services, call }) {
      const created = await services.customers.CreateOrganization(
        { name: body.name, domains: body.domains ?? [], notes: body.notes ?? '' },
        call,
      );
      return {
        data: { organization: presentOrganization(created) },
        status: 201,
        location: `/organizations/${created.id}`,
      };
    },
  }),

  organizationOperation({
    method: 'get',
    path: '/organizations/:id',
    access: { scope: 'customers:read', role: 'viewer' },
    request: { params: organizationIdParams },
    operationId: 'getOrganization',
    summary: 'Get an organization',
    success: single(200, 'The organization.', 'organization', organizationSchema, EXAMPLES.organization),
    errors: [400, 404],
    async handle({ params, services, call }) {
      const found = await services.customers.GetOrganization({ id: params.id }, call);
      return { data: { organization: presentOrganization(found) } };
    },
  }),

  organizationOperation({
    method: 'put',
    path: '/organizations/:id',
    access: { scope: 'customers:write', role: 'agent' },
    request: { params: organizationIdParams, body: updateOrganizationBody },
    bodyExample: { domains: ['example.com', 'acme.example'] },
    operationId: 'updateOrganization',
    summary: 'Update an organization',
    success: single(
      200,
      'The updated organization.',
      'organization',
      organizationSchema,
      EXAMPLES.organization,
    ),
    errors: [400, 404, 409, 422],
    async handle({ params, body, services, call }) {
      const updated = await services.customers.UpdateOrganization(
        {
          id: params.id,
          ...(body.name === undefined ? {} : { name: body.name }),
          ...(body.domains === undefined ? {} : { domains: { values: body.domains } }),
          ...(body.notes === undefined ? {} : { notes: body.notes }),
        },
        call,
      );
      return { data: { organization: presentOrganization(updated) } };
    },
  }),

  organizationOperation({
    method: 'delete',
    path: '/organizations/:id',
    access: { scope: 'customers:write', role: CUSTOMER_ROLES.delete },
    request: { params: organizationIdParams },
    operationId: 'deleteOrganization',
    summary: 'Delete an organization (its customers stay)',
    success: confirmation('Organization deleted'),
    errors: [400, 404],
    handle({ params, principal, services, call }) {
      requireRole(principal, CUSTOMER_ROLES.delete);
      return confirmed(services.customers.DeleteOrganization({ id: params.id }, call));
    },
  }),
];
