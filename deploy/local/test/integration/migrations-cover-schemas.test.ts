import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { SERVICE_NAMES } from '@tix/protos';
import { REPO_ROOT, serviceDir } from '../../src/fleet-layout.js';

const run = promisify(execFile);

describe('migrations cover every service schema', () => {
  const withSchema = SERVICE_NAMES.filter((name) =>
    existsSync(path.join(serviceDir(name), 'prisma/schema.prisma')),
  );

  it('finds at least the lookup schema', () => {
    expect(withSchema).to.include('lookup');
  });

  for (const name of withSchema) {
    it(`${name}: schema.prisma has no change that lacks a migration`, async () => {
      const { stderr } = await run(
        process.execPath,
        ['--import', 'tsx', 'deploy/local/src/make-migration.ts', name, '--check'],
        {
          cwd: REPO_ROOT,
        },
      );
      expect(stderr).to.contain('migrations cover schema.prisma');
    });
  }
});
