/**
 * `prisma generate` for the service in the current directory. Generate never runs Prisma's native
 * schema engine, but the CLI refuses to start without one unless PRISMA_SCHEMA_ENGINE_BINARY names an
 * existing file; any file will do, so we name this Node binary.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.cwd(), 'package.json'));
const prismaCli = require.resolve('prisma/build/index.js');

execFileSync(process.execPath, [prismaCli, 'generate'], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  },
});
console.error(`prisma client generated for ${path.basename(process.cwd())}`);
