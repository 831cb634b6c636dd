/**
 * The prose of the customer and organization operations (routes/v1/customers.ts) in the API
 * description, by operationId.
 */
import { CUSTOMER_LIMITS } from '@tix/protos';

export const CUSTOMER_DESCRIPTIONS = {
  listCustomers:
    'Customers are shared by every project (no project context). `email` finds the one customer holding that ' +
    'address (exact, case-insensitive): `customers` then holds it or nothing. `q` searches names and addresses; ' +
    '`organization_id` filters. `count` is the number of customers in this answer, `pagination` places it in ' +
    'the whole list. An unknown query parameter is 400 naming it. `Link` names the neighbouring pages.',
  createCustomer:
    `1 to ${CUSTOMER_LIMITS.emails} addresses, the first primary; an address another customer holds is 409. ` +
    "Without `organization_id`, the organization claiming the primary address's domain, if any.",
  getCustomer: 'A customer merged into another answers that one; a deleted customer is 404.',
  updateCustomer:
    'Only the given fields change; `emails` replaces the addresses (the first becomes primary), ' +
    '`organization_id: null` takes the customer out of their organization.',
  deleteCustomer:
    'Anonymises the customer: the name becomes "Deleted customer", addresses and notes are removed; their ' +
    "tickets and comments stay. Needs the admin role on both hosts (with an API key: its owner's role).",
  mergeCustomer:
    'This customer disappears into `target_id`: the target gains its addresses (and its organization when it ' +
    'has none), and this id answers the target from then on. Into itself, a deleted or a merged customer is 422. ' +
    "Needs the team_lead role or higher on both hosts (with an API key: its owner's role).",
  listCustomerTickets:
    'The tickets of the project this customer requested or is copied on, with the parameters and answers of ' +
    'GET /tickets (pages, cursor mode, `q`). An unknown customer is 404.',
  listOrganizations:
    'Organizations are shared by every project (no project context). `q` searches names and domains.',
  createOrganization: 'A name or domain another organization holds is 409.',
  getOrganization: '`customer_count` counts its customers.',
  updateOrganization: 'Only the given fields change; `domains` replaces the list.',
  deleteOrganization:
    "Its customers stay, without an organization. Needs the admin role on both hosts (with an API key: its owner's role).",
};
