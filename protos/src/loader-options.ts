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
