/**
 * The declared operations themselves (routes/index.ts): what the API description cannot show, such
 * as the role each one will need on the session host, and the JSON body parser's exemption of the
 * multipart uploads.
 */
import { expect } from 'chai';
import type { Role, Scope } from '@tix/protos';
import { OPERATIONS } from '../../src/routes/index.js';
import { readsOwnBody } from '../../src/routes/mount.js';

/** The role table (docs/decisions.md, "Roles, one table for both hosts"): the least role per scope. */
const ROLE_OF_SCOPE: Record<Scope, Role> = {
  'tickets:read': 'viewer',
  'comments:read': 'viewer',
  'tickets:write': 'agent',
  'comments:write': 'agent',
  'tickets:delete': 'team_lead',
  'customers:read': 'viewer',
  'customers:write': 'agent',
};

describe('the declared operations', () => {
  it('are each declared once', () => {
    const ids = OPERATIONS.map((operation) => operation.operationId);
    expect(new Set(ids).size).to.equal(ids.length);
    const routes = OPERATIONS.flatMap((operation) =>
      operation.hosts.map((host) => `${host} ${operation.method} ${operation.path}`),
    );
    expect(new Set(routes).size).to.equal(routes.length);
  });

  it('name the role the session host requires: the role table, and admin for webhooks and API keys', () => {
    for (const operation of OPERATIONS) {
      const { access } = operation;
      if (access === 'public' || 'session' in access) continue;
      const administration =
        ['/webhooks', '/api-keys'].some((prefix) => operation.path.startsWith(prefix)) ||
        [
          'createUser',
          'updateUser',
          'createProject',
          'createTicketType',
          'updateProject',
          'addProjectStatus',
          'updateProjectStatus',
          'removeProjectStatus',
          'updateTicketType',
          'issuePasswordReset',
          'getAutonomy',
          'updateGuardrails',
          'activateKillSwitch',
          'clearKillSwitch',
          'previewAutonomyThreshold',
          'listMailboxes',
          'getMailbox',
          'createMailbox',
          'updateMailbox',
          'testMailbox',
          'listMailboxMessages',
          'getMailSettings',
          'updateMailSettings',
        ].includes(operation.operationId);
      // The assistant's actions: agents see them, team leads review and revert them
      // (docs/assistant.md, "Reviewing and reverting").
      const review: Record<string, 'agent' | 'team_lead' | 'admin'> = {
        listAutonomousActions: 'agent',
        listAuditQueue: 'team_lead',
        acknowledgeAutonomousAction: 'team_lead',
        revertAutonomousAction: 'team_lead',
        // Customers (docs/decisions.md, "Customers at the gateway"): team leads merge, admins delete.
        mergeCustomer: 'team_lead',
        deleteCustomer: 'admin',
        deleteOrganization: 'admin',
      };
      const expected = administration
        ? 'admin'
        : (review[operation.operationId] ?? (access.scope === null ? 'viewer' : ROLE_OF_SCOPE[access.scope]));
      expect(access.role, operation.operationId).to.equal(expected);
    }
  });

  it('leave every multipart upload to its handler (the JSON body parser exempts it)', () => {
    const uploads = OPERATIONS.filter((operation) => operation.upload);
    expect(uploads.map((operation) => operation.operationId)).to.deep.equal(['uploadAttachment']);
    const isUpload = readsOwnBody(OPERATIONS, 'api');
    for (const operation of uploads) {
      const path = operation.path.replace(/:[A-Za-z]+/g, '12');
      expect(isUpload({ method: operation.method.toUpperCase(), path }), operation.operationId).to.equal(
        true,
      );
    }
    for (const operation of OPERATIONS.filter((each) => !each.upload)) {
      const path = operation.path.replace(/:[A-Za-z]+/g, '12');
      expect(isUpload({ method: operation.method.toUpperCase(), path }), operation.operationId).to.equal(
        false,
      );
    }
  });
});
