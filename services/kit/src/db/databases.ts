/** Creating and dropping a service's database on the PostgreSQL server (launcher and tests). */
import pg from 'pg';

/** Name of the database a connection URL points at. */
export function databaseName(connectionString: string): string {
  const name = decodeURIComponent(new URL(connectionString).pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(name))
    throw new Error(`unsupported database name ${JSON.stringify(name)}`);
  return name;
}

function maintenanceUrl(connectionString: string): string {
  const url = new URL(connectionString);
  url.pathname = '/postgres';
  return url.toString();
}

async function withMaintenanceClient<T>(
  connectionString: string,
  run: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: maintenanceUrl(connectionString) });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Creates the database of `connectionString` unless it exists. Returns true when it was created. */
export async function ensureDatabase(connectionString: string): Promise<boolean> {
  const name = databaseName(connectionString);
  return withMaintenanceClient(connectionString, async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name}"`);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '42P04') return false; // created concurrently
      throw error;
    }
  });
}

/** Drops the database of `connectionString` (closing its connections) if it exists. */
export async function dropDatabase(connectionString: string): Promise<void> {
  const name = databaseName(connectionString);
  await withMaintenanceClient(connectionString, (client) =>
    client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  );
}
