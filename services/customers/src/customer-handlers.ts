/** gRPC handlers of the CustomerService: each RPC is one use case of customers.ts or organizations.ts. */
import type pg from 'pg';
import { actorOf, type AsyncHandlers, type CallContext } from '@tix/kit';
import type { customer } from '@tix/protos';
import { presentCustomer } from './customer-rows.js';
import {
  batchGetCustomers,
  createCustomer,
  deleteCustomer,
  findOrCreateCustomers,
  getCustomer,
  listCustomers,
  mergeCustomers,
  updateCustomer,
  type Author,
} from './customers.js';
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  updateOrganization,
} from './organizations.js';

/** The author of a change: the principal's user id (the kit's actorOf), null without a principal. */
const authorOf = (context: CallContext): Author => actorOf(context.principal).user_id;

export function customerHandlers(deps: { pool: pg.Pool }): AsyncHandlers<customer.CustomerServiceHandlers> {
  const { pool } = deps;
  return {
    ListCustomers: (request) => listCustomers(pool, request),
    async GetCustomer(request) {
      return presentCustomer(await getCustomer(pool, request.id));
    },
    async BatchGetCustomers(request) {
      return { customers: (await batchGetCustomers(pool, request.ids)).map(presentCustomer) };
    },
    async FindOrCreateCustomers(request, context) {
      const rows = await findOrCreateCustomers(pool, request.addresses, authorOf(context));
      return { customers: rows.map(presentCustomer) };
    },
    async CreateCustomer(request, context) {
      return presentCustomer(await createCustomer(pool, request, authorOf(context)));
    },
    async UpdateCustomer(request, context) {
      return presentCustomer(await updateCustomer(pool, request, authorOf(context)));
    },
    async MergeCustomers(request, context) {
      return presentCustomer(await mergeCustomers(pool, request, actorOf(context.principal)));
    },
    async DeleteCustomer(request, context) {
      await deleteCustomer(pool, request.id, authorOf(context));
      return { message: 'Customer deleted' };
    },
    ListOrganizations: (request) => listOrganizations(pool, request),
    GetOrganization: (request) => getOrganization(pool, request.id),
    CreateOrganization: (request, context) => createOrganization(pool, request, authorOf(context)),
    UpdateOrganization: (request, context) => updateOrganization(pool, request, authorOf(context)),
    async DeleteOrganization(request, context) {
      await deleteOrganization(pool, request.id, authorOf(context));
      return { message: 'Organization deleted' };
    },
  };
}
