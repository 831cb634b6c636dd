/**
 * The request schemas of the customer and organization routes (customers.ts, organizations.ts) and
 * the pieces the ticket schemas take from them (a requester, cc, addresses). Validation, the typed
 * handler input and the OpenAPI description all come from these; what makes an address or a domain
 * acceptable beyond its shape is the customer service's rule. Messages are the ones clients see in
 * `validation_errors`.
 */
import { z } from 'zod';
import { CUSTOMER_LIMITS, MAX_INT32 } from '@tix/protos';
import {
  idField,
  idParam,
  integerParam,
  pageParams,
  requiredTextField,
  textField,
  textParam,
} from '../../http/schema-fields.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

export const INVALID_CUSTOMER_ID_MESSAGE = 'Invalid customer id';
export const INVALID_ORGANIZATION_ID_MESSAGE = 'Invalid organization id';

// ---- shared pieces -------------------------------------------------------------------------------

/**
 * The shape of an address: something@something, without spaces, angle brackets, quotes, commas or
 * semicolons (nothing that could smuggle a second address or a header into a mail).
 */
const ADDRESS_SHAPE = /^[^\s@<>",;()[\]\\]+@[^\s@<>",;()[\]\\]+\.[^\s@<>",;()[\]\\]+$/;

/** An email address in a body: trimmed and lower-cased, as the customer service stores it. */
export function emailField(label: string, description: string) {
  const message = `${label} must be an email address`;
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `${label} is required` : `${label} must be a string`),
    })
    .trim()
    .toLowerCase()
    .max(CUSTOMER_LIMITS.email, `${label} must be at most ${CUSTOMER_LIMITS.email} characters`)
    .regex(ADDRESS_SHAPE, message)
    .meta({ description, example: 'grace@example.com', maxLength: CUSTOMER_LIMITS.email, format: 'email' });
}

/** A customer's or an organization's name: 1..200 code points after trimming. */
const nameField = (label: string, example: string) =>
  requiredTextField(label, {
    max: CUSTOMER_LIMITS.name,
    description: `1 to ${CUSTOMER_LIMITS.name} characters after trimming.`,
    example,
  });

const notesField = textField('Notes', {
  max: CUSTOMER_LIMITS.notes,
  description: `The team's notes, at most ${CUSTOMER_LIMITS.notes} characters (never shown to the customer).`,
  example: 'Prefers mail in the morning.',
});

const emailsField = z
  .array(emailField('Each email', 'An email address.'), { error: 'Emails must be an array of addresses' })
  .min(1, 'Give at least one email address')
  .max(CUSTOMER_LIMITS.emails, `Give at most ${CUSTOMER_LIMITS.emails} email addresses`)
  .refine((emails) => new Set(emails).size === emails.length, 'Each email address may be given once')
  .meta({
    description: `1 to ${CUSTOMER_LIMITS.emails} addresses, the primary one first; each given once.`,
    example: ['grace@example.com'],
  });

const organizationIdField = idField('Organization ID', {
  description: 'An organization id.',
  example: 3,
});

/** A customer id in a body (requester_id, target_id). */
export const customerIdField = (label: string, description: string) =>
  idField(label, { description, example: 5 });

/** A requester named by address: found, or created (with `name`, else a name from the address). */
export const requesterField = z
  .object(
    {
      email: emailField('Requester email', 'The address of the person who asks.'),
      name: nameField('Requester name', 'Grace Hopper').optional(),
    },
    { error: 'Requester must be an object with email (and optionally name)' },
  )
  .meta({
    description:
      'The requester by address (additive): the customer holding it, or a new customer (named `name`, else after the address). Not with `requester_id`.',
    example: { email: 'grace@example.com', name: 'Grace Hopper' },
  });

/** `cc`: customer ids; duplicates collapse. */
export const ccField = z
  .array(customerIdField('Each cc', 'A customer id.'), { error: 'cc must be an array of customer ids' })
  .max(CUSTOMER_LIMITS.cc, `Give at most ${CUSTOMER_LIMITS.cc} customers in cc`)
  .overwrite((ids) => [...new Set(ids)])
  .meta({
    description: `Customer ids copied on the ticket (additive), at most ${CUSTOMER_LIMITS.cc}; the requester and duplicates collapse away.`,
    example: [6],
  });

/** `cc_emails`: addresses, each found or created as a customer, then copied like `cc`. */
export const ccEmailsField = z
  .array(emailField('Each cc email', 'An email address.'), {
    error: 'cc_emails must be an array of email addresses',
  })
  .max(CUSTOMER_LIMITS.cc, `Give at most ${CUSTOMER_LIMITS.cc} addresses in cc_emails`)
  .overwrite((emails) => [...new Set(emails)])
  .meta({
    description:
      'Addresses to copy on the ticket (additive): each the customer holding it, or a new customer. Joined with `cc`.',
    example: ['ada@example.com'],
  });

// ---- path ----------------------------------------------------------------------------------------

export const customerIdParams = z.object({
  id: idParam({ message: INVALID_CUSTOMER_ID_MESSAGE, description: 'Customer id.', example: 5 }),
});

export const organizationIdParams = z.object({
  id: idParam({ message: INVALID_ORGANIZATION_ID_MESSAGE, description: 'Organization id.', example: 3 }),
});

// ---- customers -----------------------------------------------------------------------------------

const EMAIL_PARAM_MESSAGE = 'email must be an email address';

export const listCustomersQuery = z.object({
  ...pageParams('Customers'),
  email: z
    .string({ error: EMAIL_PARAM_MESSAGE })
    .trim()
    .toLowerCase()
    .max(CUSTOMER_LIMITS.email, EMAIL_PARAM_MESSAGE)
    .regex(ADDRESS_SHAPE, EMAIL_PARAM_MESSAGE)
    .meta({
      description: 'Only the customer holding this address (exact, case-insensitive).',
      example: 'grace@example.com',
    })
    .optional(),
  q: textParam({
    max: CUSTOMER_LIMITS.q,
    message: `q must be 1 to ${CUSTOMER_LIMITS.q} characters`,
    description: 'Case-insensitive search in names and addresses.',
    example: 'grace',
  }).optional(),
  organization_id: integerParam({
    min: 1,
    max: MAX_INT32,
    message: 'organization_id must be an organization id (a positive integer)',
    description: 'Only customers of this organization.',
    example: 3,
  }).optional(),
});

export const createCustomerBody = z.object(
  {
    name: nameField('Name', 'Grace Hopper'),
    emails: emailsField,
    organization_id: organizationIdField
      .nullable()
      .meta({
        description:
          "An organization id; omitted or null: the organization claiming the primary address's domain, if any.",
        example: 3,
      })
      .optional(),
    notes: notesField.optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const NOTHING_TO_UPDATE_CUSTOMER =
  'Give at least one field to change: name, emails, organization_id or notes';

export const updateCustomerBody = z
  .object(
    {
      name: nameField('Name', 'Grace B. Hopper').optional(),
      emails: emailsField
        .meta({ description: 'Replaces the addresses; the first becomes primary.' })
        .optional(),
      organization_id: organizationIdField
        .nullable()
        .meta({ description: 'An organization id; null takes the customer out of theirs.', example: 3 })
        .optional(),
      notes: notesField.optional(),
    },
    { error: BODY_NOT_OBJECT_MESSAGE },
  )
  .refine(
    (body) =>
      body.name !== undefined ||
      body.emails !== undefined ||
      body.organization_id !== undefined ||
      body.notes !== undefined,
    { message: NOTHING_TO_UPDATE_CUSTOMER },
  );

export const mergeCustomerBody = z.object(
  {
    target_id: customerIdField('Target ID', 'The customer that remains; this one disappears into it.'),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

// ---- organizations -------------------------------------------------------------------------------

// Labels joined by dots; the whole name's 253 characters are a separate check (a lookahead here would
// put a pattern in the API description that many generators and validators cannot read).
const DOMAIN_SHAPE = /^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

const domainsField = z
  .array(
    z
      .string({ error: 'Each domain must be a string' })
      .trim()
      .toLowerCase()
      .overwrite((domain) => domain.replace(/^@/, ''))
      .max(CUSTOMER_LIMITS.domain, 'Each domain must be a domain name such as example.com')
      .regex(DOMAIN_SHAPE, 'Each domain must be a domain name such as example.com'),
    { error: 'Domains must be an array of domain names' },
  )
  .max(CUSTOMER_LIMITS.domains, `Give at most ${CUSTOMER_LIMITS.domains} domains`)
  .overwrite((domains) => [...new Set(domains)])
  .meta({
    description: `Email domains whose new customers join the organization, at most ${CUSTOMER_LIMITS.domains}; duplicates collapse.`,
    example: ['example.com'],
  });

export const listOrganizationsQuery = z.object({
  ...pageParams('Organizations'),
  q: textParam({
    max: CUSTOMER_LIMITS.q,
    message: `q must be 1 to ${CUSTOMER_LIMITS.q} characters`,
    description: 'Case-insensitive search in names and domains.',
    example: 'acme',
  }).optional(),
});

export const createOrganizationBody = z.object(
  {
    name: nameField('Name', 'Acme Corp'),
    domains: domainsField.optional(),
    notes: notesField.optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const NOTHING_TO_UPDATE_ORGANIZATION = 'Give at least one field to change: name, domains or notes';

export const updateOrganizationBody = z
  .object(
    {
      name: nameField('Name', 'Acme Corporation').optional(),
      domains: domainsField
        .meta({ description: 'Replaces the domains.', example: ['acme.example'] })
        .optional(),
      notes: notesField.optional(),
    },
    { error: BODY_NOT_OBJECT_MESSAGE },
  )
  .refine((body) => body.name !== undefined || body.domains !== undefined || body.notes !== undefined, {
    message: NOTHING_TO_UPDATE_ORGANIZATION,
  });

export type ListCustomersQuery = z.output<typeof listCustomersQuery>;
export type CreateCustomerBody = z.output<typeof createCustomerBody>;
export type UpdateCustomerBody = z.output<typeof updateCustomerBody>;
export type ListOrganizationsQuery = z.output<typeof listOrganizationsQuery>;
export type CreateOrganizationBody = z.output<typeof createOrganizationBody>;
export type UpdateOrganizationBody = z.output<typeof updateOrganizationBody>;
