import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Options } from '@grpc/proto-loader';

/** Root folder of the .proto files; import paths in the protos are relative to it. */
export const PROTO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The one set of proto-loader options used by every process. The type generator derives its flags
 * from this object, so the generated types always describe what `loadSync` returns.
 */
export const LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
} satisfies Options;

/** Every service contract, relative to PROTO_ROOT. */
export const SERVICE_PROTO_FILES = {
  lookup: 'tix/lookup/v1/lookup_service.proto',
  tickets: 'tix/ticket/v1/ticket_service.proto',
  comments: 'tix/comment/v1/comment_service.proto',
  attachments: 'tix/attachment/v1/attachment_service.proto',
  webhooks: 'tix/webhook/v1/webhook_service.proto',
  activity: 'tix/activity/v1/activity_service.proto',
  ai: 'tix/ai/v1/ai_service.proto',
} as const;

export type ServiceName = keyof typeof SERVICE_PROTO_FILES;
