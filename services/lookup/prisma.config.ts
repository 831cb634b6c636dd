// Used by the Prisma CLI only (generate; migrate deploy where the native engine exists).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: {
    url: process.env.LOOKUP_DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/tix_lookup',
  },
});
