/**
 * The console's route table: one entry per screen, each screen a file of screens/ (by area: admin/,
 * ticket/, assistant/; the account pages and the activity feed at the top). `access` is who may open
 * it (access.ts): 'signed_out' (sign-in and the password pages: a signed-in user is sent on),
 * 'anyone', or `{ operation }`, the operationId the screen needs: the shell opens it when the
 * session's `allowed_operations` holds it, sends the signed-out to sign-in and tells the others they
 * may not. `nav` puts it in the header's navigation, shown only to those who may open it.
 */
import type { ComponentType } from 'preact';
import type { Access } from './access';
import type { ScreenProps } from './screens/screen';
import Activity from './screens/activity';
import AdminApiKeys from './screens/admin/api-keys';
import AdminGuardrails from './screens/admin/guardrails';
import AdminKillSwitch from './screens/admin/kill-switch';
import AdminProjects from './screens/admin/projects';
import AdminTicketTypes from './screens/admin/ticket-types';
import AdminUsers from './screens/admin/users';
import AdminWebhooks from './screens/admin/webhooks';
import Assistant from './screens/assistant/assistant';
import AuditQueue from './screens/assistant/audit-queue';
import Customer from './screens/customer/customer';
import Customers from './screens/customer/customers';
import Organization from './screens/customer/organization';
import Organizations from './screens/customer/organizations';
import AdminMailboxes from './screens/admin/mailboxes';
import Board from './screens/ticket/board';
import ForgotPassword from './screens/forgot-password';
import ResetPassword from './screens/reset-password';
import SignIn from './screens/sign-in';
import SignOut from './screens/sign-out';
import Ticket from './screens/ticket/ticket';
import Tickets from './screens/ticket/tickets';

export interface RouteDefinition {
  /** A path pattern; `:name` is a parameter (`/tickets/:id`). */
  path: string;
  title: string;
  screen: ComponentType<ScreenProps>;
  access: Access;
  nav?: { label: string; section: 'work' | 'admin' };
}

export const ROUTES: RouteDefinition[] = [
  { path: '/sign-in', title: 'Sign in', screen: SignIn, access: 'signed_out' },
  { path: '/forgot-password', title: 'Forgotten password', screen: ForgotPassword, access: 'signed_out' },
  { path: '/reset-password', title: 'New password', screen: ResetPassword, access: 'signed_out' },
  { path: '/sign-out', title: 'Signed out', screen: SignOut, access: 'anyone' },

  {
    path: '/board',
    title: 'Board',
    screen: Board,
    access: { operation: 'getBoard' },
    nav: { label: 'Board', section: 'work' },
  },
  {
    path: '/tickets',
    title: 'Tickets',
    screen: Tickets,
    access: { operation: 'listTickets' },
    nav: { label: 'Tickets', section: 'work' },
  },
  { path: '/tickets/:id', title: 'Ticket', screen: Ticket, access: { operation: 'getTicket' } },
  {
    path: '/customers',
    title: 'Customers',
    screen: Customers,
    access: { operation: 'listCustomers' },
    nav: { label: 'Customers', section: 'work' },
  },
  { path: '/customers/:id', title: 'Customer', screen: Customer, access: { operation: 'getCustomer' } },
  {
    path: '/organizations',
    title: 'Organizations',
    screen: Organizations,
    access: { operation: 'listOrganizations' },
    nav: { label: 'Organizations', section: 'work' },
  },
  {
    path: '/organizations/:id',
    title: 'Organization',
    screen: Organization,
    access: { operation: 'getOrganization' },
  },
  {
    path: '/activity',
    title: 'Activity',
    screen: Activity,
    access: { operation: 'listActivity' },
    nav: { label: 'Activity', section: 'work' },
  },
  {
    path: '/assistant',
    title: 'Assistant',
    screen: Assistant,
    access: { operation: 'suggestReply' },
    nav: { label: 'Assistant', section: 'work' },
  },
  {
    path: '/audit-queue',
    title: 'Audit queue',
    screen: AuditQueue,
    access: { operation: 'listAuditQueue' },
    nav: { label: 'Audit queue', section: 'work' },
  },

  {
    path: '/admin/users',
    title: 'Users',
    screen: AdminUsers,
    access: { operation: 'createUser' },
    nav: { label: 'Users', section: 'admin' },
  },
  {
    path: '/admin/projects',
    title: 'Projects and statuses',
    screen: AdminProjects,
    access: { operation: 'createProject' },
    nav: { label: 'Projects', section: 'admin' },
  },
  {
    path: '/admin/ticket-types',
    title: 'Ticket types',
    screen: AdminTicketTypes,
    access: { operation: 'createTicketType' },
    nav: { label: 'Ticket types', section: 'admin' },
  },
  {
    path: '/admin/api-keys',
    title: 'API keys',
    screen: AdminApiKeys,
    access: { operation: 'listApiKeys' },
    nav: { label: 'API keys', section: 'admin' },
  },
  {
    path: '/admin/webhooks',
    title: 'Webhooks',
    screen: AdminWebhooks,
    access: { operation: 'listWebhooks' },
    nav: { label: 'Webhooks', section: 'admin' },
  },
  {
    path: '/admin/mailboxes',
    title: 'Mailboxes',
    screen: AdminMailboxes,
    access: { operation: 'listMailboxes' },
    nav: { label: 'Mailboxes', section: 'admin' },
  },
  {
    path: '/admin/guardrails',
    title: 'Guardrails and preview',
    screen: AdminGuardrails,
    access: { operation: 'updateGuardrails' },
    nav: { label: 'Guardrails', section: 'admin' },
  },
  {
    path: '/admin/kill-switch',
    title: 'Kill switch',
    screen: AdminKillSwitch,
    access: { operation: 'activateKillSwitch' },
    nav: { label: 'Kill switch', section: 'admin' },
  },
];

/** Where `/` and a signed-in visit to a signed-out page go. */
export const HOME_PATH = '/board';
