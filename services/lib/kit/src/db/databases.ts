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

/** How long a drop waits for connections that are closing on their own before it terminates them. */
const DROP_GRACE_MS = 1_000;

/**
 * Drops the database of `connectionString` if it exists. Connections still open are first given
 * DROP_GRACE_MS to close (a pg pool's end() resolves before its sockets are gone, and terminating a
 * closing connection raises an error in a client that may no longer listen for one); then they are
 * terminated (WITH (FORCE)).
 */
export async function dropDatabase(connectionString: string): Promise<void> {
  const name = databaseName(connectionString);
  await withMaintenanceClient(connectionString, async (client) => {
    const deadline = Date.now() + DROP_GRACE_MS;
    while (Date.now() < deadline) {
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}"`);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006') throw error; // 55006: still in use
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}
