/**
 * The console's route table: one entry per screen, each screen a file of screens/. `access` is who
 * may open it: 'signed_out' (sign-in and the password pages: a signed-in user is sent on), 'anyone',
 * or the lowest role (the shell sends the signed-out to sign-in and tells a lower role it may not).
 * `nav` puts it in the header's navigation, shown only to roles that may open it.
 */
import type { ComponentType } from 'preact';
import type { Role } from './session';
import type { ScreenProps } from './screens/screen';
import Activity from './screens/activity';
import AdminApiKeys from './screens/admin-api-keys';
import AdminGuardrails from './screens/admin-guardrails';
import AdminKillSwitch from './screens/admin-kill-switch';
import AdminProjects from './screens/admin-projects';
import AdminTicketTypes from './screens/admin-ticket-types';
import AdminUsers from './screens/admin-users';
import AdminWebhooks from './screens/admin-webhooks';
import Assistant from './screens/assistant';
import AuditQueue from './screens/audit-queue';
import Board from './screens/board';
import ForgotPassword from './screens/forgot-password';
import ResetPassword from './screens/reset-password';
import SignIn from './screens/sign-in';
import SignOut from './screens/sign-out';
import Ticket from './screens/ticket';
import Tickets from './screens/tickets';

export interface RouteDefinition {
  /** A path pattern; `:name` is a parameter (`/tickets/:id`). */
  path: string;
  title: string;
  screen: ComponentType<ScreenProps>;
  access: 'signed_out' | 'anyone' | Role;
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
    access: 'viewer',
    nav: { label: 'Board', section: 'work' },
  },
  {
    path: '/tickets',
    title: 'Tickets',
    screen: Tickets,
    access: 'viewer',
    nav: { label: 'Tickets', section: 'work' },
  },
  { path: '/tickets/:id', title: 'Ticket', screen: Ticket, access: 'viewer' },
  {
    path: '/activity',
    title: 'Activity',
    screen: Activity,
    access: 'viewer',
    nav: { label: 'Activity', section: 'work' },
  },
  {
    path: '/assistant',
    title: 'Assistant',
    screen: Assistant,
    access: 'agent',
    nav: { label: 'Assistant', section: 'work' },
  },
  {
    path: '/audit-queue',
    title: 'Audit queue',
    screen: AuditQueue,
    access: 'team_lead',
    nav: { label: 'Audit queue', section: 'work' },
  },

  {
    path: '/admin/users',
    title: 'Users',
    screen: AdminUsers,
    access: 'admin',
    nav: { label: 'Users', section: 'admin' },
  },
  {
    path: '/admin/projects',
    title: 'Projects and statuses',
    screen: AdminProjects,
    access: 'admin',
    nav: { label: 'Projects', section: 'admin' },
  },
  {
    path: '/admin/ticket-types',
    title: 'Ticket types',
    screen: AdminTicketTypes,
    access: 'admin',
    nav: { label: 'Ticket types', section: 'admin' },
  },
  {
    path: '/admin/api-keys',
    title: 'API keys',
    screen: AdminApiKeys,
    access: 'admin',
    nav: { label: 'API keys', section: 'admin' },
  },
  {
    path: '/admin/webhooks',
    title: 'Webhooks',
    screen: AdminWebhooks,
    access: 'admin',
    nav: { label: 'Webhooks', section: 'admin' },
  },
  {
    path: '/admin/guardrails',
    title: 'Guardrails and preview',
    screen: AdminGuardrails,
    access: 'admin',
    nav: { label: 'Guardrails', section: 'admin' },
  },
  {
    path: '/admin/kill-switch',
    title: 'Kill switch',
    screen: AdminKillSwitch,
    access: 'admin',
    nav: { label: 'Kill switch', section: 'admin' },
  },
];

/** Where `/` and a signed-in visit to a signed-out page go. */
export const HOME_PATH = '/board';
