/** A step the services' config tests share. */
import { expect } from 'chai';

/**
 * A service's database on DATABASE_URL: its own database (`database`, e.g. tix_comments) on that
 * server, unless `override` (e.g. COMMENTS_DATABASE_URL) names another whole URL.
 */
export function expectOwnDatabase(
  loadConfig: (env: NodeJS.ProcessEnv) => { databaseUrl: string },
  database: string,
  override: string,
): void {
  expect(loadConfig({ DATABASE_URL: 'postgresql://u:p@db:6543/postgres' }).databaseUrl).to.equal(
    `postgresql://u:p@db:6543/${database}`,
  );
  expect(
    loadConfig({ DATABASE_URL: 'postgresql://u:p@db/postgres', [override]: 'postgresql://x@y/z' })
      .databaseUrl,
  ).to.equal('postgresql://x@y/z');
}
