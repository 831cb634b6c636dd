import { expect } from 'chai';
import { attachmentSchema } from '@tix/protos';
import { attachmentCreated, attachmentDeleted } from '../../src/attachments/attachment-events.js';
import {
  toAttachmentJson,
  toAttachmentMessage,
  type AttachmentRow,
} from '../../src/attachments/attachment-row.js';
import { newObjectKey } from '../../src/storage/object-key.js';

const ROW: AttachmentRow = {
  id: 7,
  projectId: 3,
  ticketId: 42,
  objectKey: 'attachments/3/0b6c2a57-62b8-4b1c-a5f5-3f8a1f0e9d11',
  originalFilename: 'shot.png',
  mimeType: 'image/png',
  sizeBytes: 1234,
  sha256: 'a'.repeat(64),
  createdBy: 5,
  createdAt: new Date('2026-11-21T10:00:00.123Z'),
  deletedAt: null,
};

const JSON_SHAPE = {
  id: 7,
  ticket_id: 42,
  original_filename: 'shot.png',
  mime_type: 'image/png',
  size_bytes: 1234,
  created_at: '2026-11-21T10:00:00.123Z',
};

describe('attachment shapes and events', () => {
  it('shows exactly the spec Attachment (no key, hash or project)', () => {
    expect(toAttachmentJson(ROW)).to.deep.equal(JSON_SHAPE);
    expect(toAttachmentMessage(ROW)).to.deep.equal(JSON_SHAPE);
  });

  it("the public JSON parses with the contract's attachment schema in strict mode", () => {
    expect(attachmentSchema.strict().safeParse(toAttachmentJson(ROW)).error?.issues ?? []).to.deep.equal([]);
    expect(attachmentSchema.strict().safeParse({ ...JSON_SHAPE, sha256: ROW.sha256 }).success).to.equal(
      false,
    );
  });

  it('makes attachment.created and attachment.deleted carrying the attachment', () => {
    const actor = { kind: 'api_key', user_id: 4, api_key_id: 8 } as const;
    const created = attachmentCreated(ROW, actor);
    expect(created).to.deep.include({
      type: 'attachment.created',
      source: 'attachments',
      project_id: 3,
      occurred_at: '2026-11-21T10:00:00.123Z',
      actor,
      changes: {},
      data: JSON_SHAPE,
    });
    expect(created.id).to.match(/^[0-9a-f-]{36}$/);
    const deleted = attachmentDeleted({ ...ROW, deletedAt: new Date('2026-11-22T00:00:00.000Z') }, actor);
    expect(deleted).to.deep.include({
      type: 'attachment.deleted',
      actor,
      occurred_at: '2026-11-22T00:00:00.000Z',
      data: JSON_SHAPE,
    });
    expect(deleted.id).not.to.equal(created.id);
  });

  it('keys objects by project and a random UUID, never by name', () => {
    const first = newObjectKey(3);
    expect(first).to.match(
      /^attachments\/3\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(newObjectKey(3)).not.to.equal(first);
  });
});
