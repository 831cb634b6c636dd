/**
 * The embedded S3-compatible store for laptops and CI (s3rver), started by the launcher when
 * S3_ENDPOINT is not set. Deployments use MinIO. Bytes live under S3_DATA_DIR.
 */
import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';

const port = Number(process.env.S3_PORT ?? 9000);
const directory = process.env.S3_DATA_DIR ?? '.tix/s3';
mkdirSync(directory, { recursive: true });

const server = new S3rver({ port, address: '127.0.0.1', directory, silent: true });
await server.run();
console.log(
  JSON.stringify({
    level: 'info',
    service: 's3',
    msg: `embedded S3 store listening on 127.0.0.1:${port}`,
    directory,
  }),
);

const stop = () => {
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
