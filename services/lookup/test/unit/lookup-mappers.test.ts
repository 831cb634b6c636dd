import { expect } from 'chai';
import {
  toApiKeyMessage,
  toCreatedApiKeyMessage,
  toPrincipalMessage,
} from '../../src/api-keys/api-key-mapper.js';
import { fromStatusSpecs, toProjectMessage } from '../../src/projects/project-mapper.js';
import { toTicketTypeMessage } from '../../src/ticket-types/ticket-type-mapper.js';
import { toUserMessage } from '../../src/users/user-mapper.js';

const key = {
  id: 7,
  name: 'CI',
  prefix: 'tix_abcdefgh',
  scopes: ['tickets:read'],
  projectId: null,
  userId: 3,
  createdAt: new Date('2026-01-02T03:04:05.006Z'),
  lastUsedAt: null,
  revokedAt: null,
};

describe('lookup.v1 mappers', () => {
  it('maps a project with its statuses in order', () => {
    expect(
      toProjectMessage({
        id: 1,
        name: 'Acme',
        slug: 'acme',
        prefix: 'AC',
        description: '',
        statuses: [{ slug: 'open', label: 'Open', isClosed: false, position: 0 }],
      }),
    ).to.deep.equal({
      id: 1,
      name: 'Acme',
      slug: 'acme',
      prefix: 'AC',
      description: '',
      statuses: [{ slug: 'open', label: 'Open', is_closed: false, position: 0 }],
    });
    expect(fromStatusSpecs([{ slug: 'done', label: 'Done', is_closed: true }])).to.deep.equal([
      { slug: 'done', label: 'Done', isClosed: true },
    ]);
  });

  it('maps a ticket type with its schema as JSON text', () => {
    expect(
      toTicketTypeMessage({
        id: 2,
        projectId: 1,
        name: 'Bug',
        slug: 'bug',
        description: 'd',
        isDefault: true,
        fieldSchema: [{ name: 'x' }],
        retiredAt: null,
      }),
    ).to.deep.equal({
      id: 2,
      project_id: 1,
      name: 'Bug',
      slug: 'bug',
      description: 'd',
      is_default: true,
      field_schema_json: '[{"name":"x"}]',
    });
  });

  it('maps a retired ticket type with retired_at as ISO 8601', () => {
    const message = toTicketTypeMessage({
      id: 2,
      projectId: 1,
      name: 'Bug',
      slug: 'bug',
      description: '',
      isDefault: false,
      fieldSchema: [],
      retiredAt: new Date('2026-11-25T10:00:00.000Z'),
    });
    expect(message.retired_at).to.equal('2026-11-25T10:00:00.000Z');
  });

  it('maps a user to the spec object', () => {
    expect(
      toUserMessage({
        id: 3,
        name: 'Bo',
        email: 'bo@x.io',
        role: 'viewer',
        isActive: false,
        isSystem: false,
      }),
    ).to.deep.equal({
      id: 3,
      name: 'Bo',
      email: 'bo@x.io',
      role: 'viewer',
      is_active: false,
      is_system: false,
    });
    expect(
      toUserMessage({
        id: 1,
        name: 'Tix AI',
        email: 'ai@tix.invalid',
        role: 'agent',
        isActive: true,
        isSystem: true,
      }).is_system,
    ).to.equal(true);
  });

  it('maps keys with ISO timestamps and leaves unset optionals out', () => {
    expect(toApiKeyMessage(key)).to.deep.equal({
      id: 7,
      name: 'CI',
      prefix: 'tix_abcdefgh',
      scopes: ['tickets:read'],
      user_id: 3,
      created_at: '2026-01-02T03:04:05.006Z',
    });
    expect(
      toApiKeyMessage({ ...key, projectId: 4, lastUsedAt: new Date(0), revokedAt: new Date(1000) }),
    ).to.deep.include({
      project_id: 4,
      last_used_at: '1970-01-01T00:00:00.000Z',
      revoked_at: '1970-01-01T00:00:01.000Z',
    });
    expect(toCreatedApiKeyMessage({ ...key, projectId: 4 }, 'tix_value')).to.deep.equal({
      id: 7,
      key: 'tix_value',
      scopes: ['tickets:read'],
      project_id: 4,
      user_id: 3,
      name: 'CI',
      created_at: '2026-01-02T03:04:05.006Z',
      prefix: 'tix_abcdefgh',
    });
  });

  it('maps an authenticated key to ApiKeyPrincipal', () => {
    expect(
      toPrincipalMessage({ keyId: 7, userId: 3, role: 'agent', scopes: ['tickets:read'], projectId: null }),
    ).to.deep.equal({
      key_id: 7,
      user_id: 3,
      role: 'agent',
      scopes: ['tickets:read'],
    });
    expect(
      toPrincipalMessage({ keyId: 7, userId: 3, role: 'agent', scopes: [], projectId: 9 }),
    ).to.have.property('project_id', 9);
  });
});
