/** Where the CLI finds the services it calls: <NAME>_SERVICE_ADDR, else the service's local port. */
import { FLEET, serviceAddressVariable, type ServiceName } from '@tix/protos';

/** host:port, the only form an address variable may take here (besides "none"). */
export const HOST_PORT = /^[^\s:]+:\d{1,5}$/;

/** `service`'s address from the environment, default 127.0.0.1 on its fleet port. */
export function serviceAddressIn(env: NodeJS.ProcessEnv, service: ServiceName): string {
  const value = env[serviceAddressVariable(service)]?.trim();
  return value ? value : `127.0.0.1:${FLEET[service].grpcPort}`;
}
