/**
 * The container healthcheck of every Tix image (compose uses it; the images have no shell or curl):
 *   node /app/dist/healthcheck.mjs gateway     GET http://127.0.0.1:$GATEWAY_API_PORT/healthz is 200
 *   node /app/dist/healthcheck.mjs <service>   grpc.health.v1 on 127.0.0.1:$GRPC_PORT is SERVING
 * Exits 0 when healthy, 1 otherwise. Kubernetes needs none of this: its probes speak gRPC and HTTP.
 */
import { FLEET, GATEWAY_DEFAULT_PORTS, SERVICE_NAMES, type ServiceName } from '../../protos/src/fleet.js';
import { grpcHealthStatus, httpStatus } from './health-probes.js';

const TIMEOUT_MS = 2_000;

async function healthy(target: string): Promise<boolean> {
  if (target === 'gateway') {
    const port = process.env.GATEWAY_API_PORT || String(GATEWAY_DEFAULT_PORTS.api);
    return (await httpStatus(`http://127.0.0.1:${port}/healthz`, TIMEOUT_MS)) === 200;
  }
  if ((SERVICE_NAMES as string[]).includes(target)) {
    const port = process.env.GRPC_PORT || String(FLEET[target as ServiceName].grpcPort);
    return (await grpcHealthStatus(`127.0.0.1:${port}`, TIMEOUT_MS)) === 'SERVING';
  }
  throw new Error(`usage: healthcheck.mjs gateway|${SERVICE_NAMES.join('|')}`);
}

const target = process.argv[2] ?? '';
healthy(target).then(
  (ok) => process.exit(ok ? 0 : 1),
  (error: unknown) => {
    process.stderr.write(
      `healthcheck ${target}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
