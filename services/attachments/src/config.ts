/** The attachment service's configuration, from the environment, validated once at start. */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  env,
  OBJECT_STORE_PRODUCTION_VARIABLES,
  OBJECT_STORE_VARIABLES,
  objectStoreBucket,
  objectStoreConfig,
  serviceConfig,
} from '@tix/kit';
import {
  ALLOWED_TYPES_DEFAULT,
  checkAllowedTypes,
  DEFAULT_MAX_BYTES,
  MAX_CONFIGURABLE_BYTES,
} from './uploads/file-type-rules.js';

/** The default spool folder (one per machine user; files in it are per upload). */
export const DEFAULT_SPOOL_DIR = path.join(os.tmpdir(), 'tix-attachments');
export const DEFAULT_UPLOAD_IDLE_TIMEOUT_MS = 30_000;

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export const loadConfig = serviceConfig('attachments', {
  peers: {
    tickets: 'the attachment service needs the ticket service (attachments belong to live tickets)',
  },
  variables: {
    ...OBJECT_STORE_VARIABLES,
    /** The attachment service's bucket. */
    S3_BUCKET: objectStoreBucket('tix-attachments'),
    /** How long start-up waits for the store (to create the bucket) before giving up. */
    S3_STARTUP_TIMEOUT_MS: env.positiveInt(60_000),
    ATTACHMENT_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .max(MAX_CONFIGURABLE_BYTES, `at most ${MAX_CONFIGURABLE_BYTES} (size_bytes is a 32-bit integer)`)
      .default(DEFAULT_MAX_BYTES),
    ATTACHMENT_ALLOWED_TYPES: env.list(ALLOWED_TYPES_DEFAULT.join(',')).superRefine((types, context) => {
      for (const problem of checkAllowedTypes(types)) context.addIssue({ code: 'custom', message: problem });
    }),
    ATTACHMENT_SPOOL_DIR: z.string().min(1).default(DEFAULT_SPOOL_DIR),
    /** An upload stream silent this long is abandoned (504) and its spool file removed. */
    ATTACHMENT_UPLOAD_IDLE_TIMEOUT_MS: env.positiveInt(DEFAULT_UPLOAD_IDLE_TIMEOUT_MS),
    /** How often deleted attachments whose object removal failed are retried. */
    ATTACHMENT_SWEEP_INTERVAL_MS: env.positiveInt(60_000),
  },
  check: (values, context) => {
    if (values.NODE_ENV !== 'production') return;
    for (const name of OBJECT_STORE_PRODUCTION_VARIABLES) {
      if (values[name] === undefined)
        context.addIssue({ code: 'custom', path: [name], message: 'required in production' });
    }
  },
  read: (values) => ({
    /** Where and how the bytes are stored (an S3-compatible endpoint: MinIO, or s3rver locally). */
    store: objectStoreConfig(values, values.S3_BUCKET),
    storeStartupTimeoutMs: values.S3_STARTUP_TIMEOUT_MS,
    /** What an upload may be. */
    uploads: {
      /** Largest accepted file, in bytes (the gateway stops earlier with the same limit). */
      maxBytes: values.ATTACHMENT_MAX_BYTES,
      /** MIME types that may be stored (see uploads/file-type-rules.ts for how a type is decided). */
      allowedTypes: new Set(values.ATTACHMENT_ALLOWED_TYPES.map((type) => type.toLowerCase())),
      /** Folder for files being received; each is removed once stored or refused. */
      spoolDir: values.ATTACHMENT_SPOOL_DIR,
      /** An upload that sends nothing for this long is given up on (its sender is gone). */
      idleTimeoutMs: values.ATTACHMENT_UPLOAD_IDLE_TIMEOUT_MS,
    },
    sweepIntervalMs: values.ATTACHMENT_SWEEP_INTERVAL_MS,
  }),
});

export type AttachmentsConfig = ReturnType<typeof loadConfig>;
export type UploadPolicy = AttachmentsConfig['uploads'];

/** The upload policy when nothing is configured (25 MB, the default allow-list and spool folder, 30 s idle). */
export const DEFAULT_UPLOAD_POLICY: UploadPolicy = {
  maxBytes: DEFAULT_MAX_BYTES,
  allowedTypes: new Set(ALLOWED_TYPES_DEFAULT),
  spoolDir: DEFAULT_SPOOL_DIR,
  idleTimeoutMs: DEFAULT_UPLOAD_IDLE_TIMEOUT_MS,
};
