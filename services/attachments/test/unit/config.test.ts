import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '@tix/kit';
import { loadConfig } from '../../src/config.js';
import { ALLOWED_TYPES_DEFAULT } from '../../src/uploads/file-type-rules.js';

describe('attachments config', () => {
  it('has working local defaults (s3rver credentials, 25 MB, the default types)', () => {
    const config = loadConfig({});
    expect(config).to.deep.include({
      grpcHost: '127.0.0.1',
      grpcPort: 50054,
      peers: { tickets: '127.0.0.1:50052' },
      databaseUrl: 'postgresql://postgres:postgres@127.0.0.1:5432/tix_attachments',
      store: {
        endpoint: 'http://127.0.0.1:9000',
        accessKey: 'S3RVER',
        secretKey: 'S3RVER',
        region: 'us-east-1',
        bucket: 'tix-attachments',
      },
      sweepIntervalMs: 60_000,
    });
    expect(config.uploads).to.deep.equal({
      maxBytes: 26_214_400,
      allowedTypes: new Set(ALLOWED_TYPES_DEFAULT),
      spoolDir: path.join(os.tmpdir(), 'tix-attachments'),
      idleTimeoutMs: 30_000,
    });
  });

  it('reads the store and the upload policy', () => {
    const config = loadConfig({
      S3_ENDPOINT: 'https://minio.internal:9443',
      S3_ACCESS_KEY: 'key',
      S3_SECRET_KEY: 'secret',
      S3_BUCKET: 'tix.files',
      ATTACHMENT_MAX_BYTES: '1048576',
      ATTACHMENT_ALLOWED_TYPES: 'image/PNG, application/pdf ,',
      ATTACHMENTS_DATABASE_URL: 'postgresql://u:p@db:5432/files',
    });
    expect(config.store).to.deep.include({ endpoint: 'https://minio.internal:9443', bucket: 'tix.files' });
    expect(config.uploads.maxBytes).to.equal(1_048_576);
    expect(config.uploads.allowedTypes).to.deep.equal(new Set(['image/png', 'application/pdf']));
    expect(config.databaseUrl).to.equal('postgresql://u:p@db:5432/files');
  });

  it('names every bad variable', () => {
    const attempt = () =>
      loadConfig({
        NODE_ENV: 'production',
        TICKETS_SERVICE_ADDR: 'none',
        S3_ENDPOINT: 'ftp://store',
        S3_BUCKET: 'Bad_Bucket',
        ATTACHMENT_MAX_BYTES: '3000000000',
        ATTACHMENT_ALLOWED_TYPES: 'text/html',
      });
    expect(attempt).to.throw(ConfigError);
    try {
      attempt();
    } catch (error) {
      const message = (error as Error).message;
      for (const name of [
        'TICKETS_SERVICE_ADDR',
        'S3_ENDPOINT',
        'S3_BUCKET',
        'ATTACHMENT_MAX_BYTES',
        'ATTACHMENT_ALLOWED_TYPES',
        'S3_ACCESS_KEY: required in production',
        'S3_SECRET_KEY: required in production',
      ]) {
        expect(message).to.contain(name);
      }
    }
  });
});
