/**
 * CustomerService messages -> the API's JSON: Customer and Organization (services/lib/contract
 * resources/customer.ts), an absent organization as null. A tombstone's `merged_into` and `deleted`
 * stay inside the fleet: the service answers a merged customer's target and a deleted one as 404.
 */
import type { customer, CustomerJson, OrganizationJson } from '@tix/protos';

export function presentCustomer(message: customer.Customer__Output): CustomerJson {
  return {
    id: message.id,
    name: message.name,
    emails: message.emails,
    organization_id: message.organization_id ?? null,
    notes: message.notes,
    created_at: message.created_at,
    updated_at: message.updated_at,
  };
}

export function presentOrganization(message: customer.Organization__Output): OrganizationJson {
  return {
    id: message.id,
    name: message.name,
    domains: message.domains,
    notes: message.notes,
    customer_count: message.customer_count,
    created_at: message.created_at,
    updated_at: message.updated_at,
  };
}
