/**
 * Customers (the people outside the team: requesters and CCs of tickets) and their organizations, as
 * the API sends them (additive, issue 28): declared once here. The gateway's presenters write them;
 * its OpenAPI document names them `Customer` and `Organization`. The customer service's contract
 * (protos tix/customer/v1) is the source of their rules; the limits below are what the gateway
 * checks before a request travels.
 */
import { z } from 'zod';
import { idField as id, timestampField as timestamp } from './fields.js';

/** Bounds of customer and organization input, checked at the edge (docs/decisions.md, "Customers at the gateway"). */
export const CUSTOMER_LIMITS = {
  /** A customer's or an organization's name, in code points (the customer service's bounds). */
  name: 255,
  notes: 10_000,
  /** Addresses of one customer. */
  emails: 20,
  /** One address (a 64-octet local part, the @ and a 255-octet domain). */
  email: 320,
  localPart: 64,
  /** Domains of one organization. */
  domains: 50,
  domain: 253,
  /** `q` of the customer and organization lists. */
  q: 200,
  /** Customer ids in a ticket's cc, or addresses in its cc_emails. */
  cc: 50,
  /** Ids of one BatchGetCustomers (a page of tickets' requesters and CCs, de-duplicated). */
  batchIds: 1000,
  /** Addresses of one FindOrCreateCustomers (a requester and a ticket's 50 CCs fit). */
  addresses: 100,
} as const;

export const customerSchema = z
  .object({
    id: id('Customer id.'),
    name: z.string().meta({ description: '"Deleted customer" once deleted (anonymised).' }),
    emails: z.array(z.string()).meta({ description: 'Lower-cased email addresses, the primary one first.' }),
    organization_id: z.number().int().nullable().meta({ description: 'Organization id, or null.' }),
    notes: z.string().meta({ description: "The team's notes about the customer (never shown to them)." }),
    created_at: timestamp('Creation time'),
    updated_at: timestamp('Last change'),
  })
  .meta({ description: 'A customer: a person outside the team who asks or is copied (never staff).' });

export const organizationSchema = z
  .object({
    id: id('Organization id.'),
    name: z.string(),
    domains: z
      .array(z.string())
      .meta({ description: 'Lower-cased email domains whose new customers join this organization.' }),
    notes: z.string(),
    customer_count: z.number().int().meta({ description: 'Customers in the organization.' }),
    created_at: timestamp('Creation time'),
    updated_at: timestamp('Last change'),
  })
  .meta({ description: 'An organization customers belong to (matched by email domain or set by an agent).' });

/** A customer as the API sends it (the output of customerSchema). */
export type CustomerJson = z.output<typeof customerSchema>;
/** An organization as the API sends it (the output of organizationSchema). */
export type OrganizationJson = z.output<typeof organizationSchema>;
