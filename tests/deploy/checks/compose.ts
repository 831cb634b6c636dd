/**
 * deploy/compose.yaml against the fleet: the four backing stores with healthchecks, one migration
 * run per service that the service waits for, every process built from deploy/Dockerfile with a
 * healthcheck and a locked-down container, services not built yet parked in a profile, the gateway
 * published on 8080/8081, and one environment block that every built process's config accepts.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { FLEET, serviceAddressVariable, SERVICE_NOT_DEPLOYED } from '@tix/protos';
import type { Deployable } from '../../../deploy/images/deployables.js';
import { get, isObject, text, type Json, type JsonObject } from '../kustomize/objects.js';
import { loopbackValues, tryLoadConfig, type ProcessModel } from './processes.js';

/** Replaces `${NAME:-default}` with its default and `${NAME}` with "" (what compose does with no .env). */
export function interpolateDefaults(text: string): string {
  return text.replace(
    /\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g,
    (_match, _name: string, fallback?: string) => fallback ?? '',
  );
}

/** Parses a compose file (YAML merge keys on, variables at their defaults). */
export function readCompose(file: string): JsonObject {
  // Every process merges the shared anchors (environment, healthcheck, process defaults): a fleet of
  // nine services passes the parser's default of 100 alias expansions, which guards untrusted input.
  const value: unknown = parse(interpolateDefaults(readFileSync(file, 'utf8')), {
    merge: true,
    maxAliasCount: 1000,
  });
  if (!isObject(value) || !isObject(value.services)) throw new Error(`${file}: no services`);
  return value;
}

const BACKING_STORES: Record<string, RegExp> = {
  postgres: /^postgres:15(\b|$)/,
  rabbitmq: /^rabbitmq:3\.13-management$/,
  redis: /^redis:7(\b|$)/,
  minio: /minio\/minio:RELEASE\./,
};

function environmentOf(service: Json | undefined): Record<string, string> {
  const environment = get(service, 'environment');
  if (!isObject(environment)) return {};
  return Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, text(value)]));
}

function dependsOn(service: Json | undefined, other: string): string | undefined {
  const condition = get(service, 'depends_on', other, 'condition');
  return typeof condition === 'string' ? condition : undefined;
}

function seconds(duration: unknown): number {
  const match = /^(\d+)(ms|s|m)$/.exec(text(duration ?? '10s'));
  if (!match) return Number.NaN;
  return Number(match[1]) * ({ ms: 0.001, s: 1, m: 60 } as Record<string, number>)[match[2]!]!;
}

/** Problems of a parsed compose file for the given deployables and process models. */
export function composeProblems(
  compose: JsonObject,
  deployables: Deployable[],
  models: Map<string, ProcessModel>,
): string[] {
  const problems: string[] = [];
  const services = compose.services as JsonObject;
  for (const [name, image] of Object.entries(BACKING_STORES)) {
    const service = services[name];
    if (!image.test(String(get(service, 'image'))))
      problems.push(`${name}: image ${String(get(service, 'image'))} is not ${image}`);
    if (!isObject(get(service, 'healthcheck'))) problems.push(`${name}: no healthcheck`);
  }

  for (const deployable of deployables) {
    const name = deployable.name;
    const service = services[name];
    if (!isObject(service)) {
      problems.push(`${name}: not in compose`);
      continue;
    }
    if (
      get(service, 'build', 'dockerfile') !== 'deploy/Dockerfile' ||
      get(service, 'build', 'args', 'SERVICE') !== name
    ) {
      problems.push(`${name}: not built from deploy/Dockerfile with SERVICE=${name}`);
    }
    const parked = Array.isArray(service.profiles) && service.profiles.length > 0;
    if (deployable.built && parked) problems.push(`${name}: is built now; take it out of its profile`);
    if (!deployable.built && !parked)
      problems.push(`${name}: is not built yet, so it must stay in a profile`);
    const test = (get(service, 'healthcheck', 'test') as Json[] | undefined) ?? [];
    if (!(test.includes('/app/dist/healthcheck.mjs') && test.includes(name)))
      problems.push(`${name}: no healthcheck.mjs healthcheck`);
    if (service.read_only !== true) problems.push(`${name}: root filesystem is writable`);
    if (!((service.cap_drop as Json[] | undefined) ?? []).includes('ALL'))
      problems.push(`${name}: capabilities not dropped`);
    const environment = environmentOf(service);
    const graceSeconds = Number(environment.SHUTDOWN_GRACE_MS ?? 10_000) / 1000;
    if (!(seconds(service.stop_grace_period) > graceSeconds)) {
      problems.push(
        `${name}: stop_grace_period ${text(service.stop_grace_period ?? '10s')} does not exceed SHUTDOWN_GRACE_MS`,
      );
    }

    if (name !== 'gateway') {
      const migration = services[`migrate-${name}`];
      if (get(migration, 'build', 'target') !== 'migrate' || get(migration, 'command', 0) !== name) {
        problems.push(`migrate-${name}: missing, or not the migrate target with command [${name}]`);
      }
      if (dependsOn(migration, 'postgres') !== 'service_healthy')
        problems.push(`migrate-${name}: does not wait for postgres`);
      if (dependsOn(service, `migrate-${name}`) !== 'service_completed_successfully') {
        problems.push(`${name}: does not wait for migrate-${name} to complete`);
      }
      const address = environmentOf(services.gateway)[serviceAddressVariable(name)];
      const expected = deployable.built ? `${name}:${FLEET[name].grpcPort}` : SERVICE_NOT_DEPLOYED;
      if (address !== expected)
        problems.push(`${serviceAddressVariable(name)} is ${String(address)}, expected ${expected}`);
    }

    const model = models.get(name);
    if (model?.loadConfig) {
      const { config, error } = tryLoadConfig(model, environment);
      if (error)
        problems.push(`${name}: refuses the compose environment: ${error.replace(/\s*\n\s*/g, '; ')}`);
      for (const value of loopbackValues(config))
        problems.push(`${name}: ${value} is a loopback address in a container`);
    }
  }

  const gateway = services.gateway;
  const published = ((get(gateway, 'ports') as Json[] | undefined) ?? []).map(String);
  for (const port of [
    environmentOf(gateway).GATEWAY_API_PORT ?? '8080',
    environmentOf(gateway).GATEWAY_APP_PORT ?? '8081',
  ]) {
    if (!published.some((mapping) => mapping.endsWith(`:${port}:${port}`) || mapping === `${port}:${port}`)) {
      problems.push(`gateway: port ${port} is not published`);
    }
  }
  for (const deployable of deployables.filter((item) => item.built && item.name !== 'gateway')) {
    if (dependsOn(gateway, deployable.name) !== 'service_healthy')
      problems.push(`gateway: does not wait for ${deployable.name}`);
  }
  return problems;
}
