/**
 * What each Tix process needs from its environment, read from the process's own config module
 * (gateway/src/config.ts, services/<name>/src/config.ts) rather than from a hand-kept list: the
 * variables it reads (recorded while it parses), whether a given environment is accepted, and what
 * it falls back to. A service whose code does not exist yet has no model beyond its fleet port.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { listDeployables, REPO_ROOT, type DeployableName } from '../../../deploy/images/deployables.js';
import { get, isObject, text, type Json, type JsonObject, type K8sObject } from '../kustomize/objects.js';

export interface ProcessModel {
  name: DeployableName;
  /** The process's loadConfig, when its config module exists. */
  loadConfig: ((environment: NodeJS.ProcessEnv) => unknown) | undefined;
  /** Environment variables its config module reads (empty when there is none). */
  variables: string[];
  /** Ports it listens on by default (the fleet map's port, or the gateway's two). */
  defaultPorts: number[];
}

/** Names `loadConfig` reads from the environment, recorded through a proxy while it parses one. */
export function variablesReadBy(loadConfig: (environment: NodeJS.ProcessEnv) => unknown): string[] {
  const read = new Set<string>();
  const environment = new Proxy<NodeJS.ProcessEnv>(
    { NODE_ENV: 'production' },
    {
      get(target, key) {
        if (typeof key === 'string') read.add(key);
        return Reflect.get(target, key) as unknown;
      },
    },
  );
  try {
    loadConfig(environment);
  } catch {
    // An empty environment may well be refused; the names read are what matter here.
  }
  return [...read].filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name)).sort();
}

/** Loads the model of every deployable from its config module (dynamic import, so none is required). */
export async function loadProcessModels(root = REPO_ROOT): Promise<Map<DeployableName, ProcessModel>> {
  const models = new Map<DeployableName, ProcessModel>();
  for (const deployable of listDeployables(root)) {
    const file = path.join(root, deployable.dir, 'src/config.ts');
    let loadConfig: ProcessModel['loadConfig'];
    if (existsSync(file)) {
      const module = (await import(pathToFileURL(file).href)) as { loadConfig?: unknown };
      if (typeof module.loadConfig !== 'function')
        throw new Error(`${deployable.dir}/src/config.ts exports no loadConfig`);
      loadConfig = module.loadConfig as ProcessModel['loadConfig'];
    }
    models.set(deployable.name, {
      name: deployable.name,
      loadConfig,
      variables: loadConfig ? variablesReadBy(loadConfig) : [],
      defaultPorts: deployable.defaultPorts,
    });
  }
  return models;
}

export interface ResolvedEnvironment {
  /** Variable -> value; a Secret reference resolves to a placeholder (see secretPlaceholder). */
  values: Record<string, string>;
  /** Variable -> "Secret <name>/<key>" or "ConfigMap <name>" or "literal": where each comes from. */
  sources: Record<string, string>;
  problems: string[];
}

/**
 * The value a Secret reference stands for during checks, shaped like what the variable documents:
 * a connection URL (never a loopback address) for `*_URL`, otherwise 32 bytes in base64 (what an
 * encryption key such as WEBHOOK_SECRET_KEY must be, and an acceptable access key or password).
 */
export function secretPlaceholder(variable: string, secret: string, key: string): string {
  if (variable.endsWith('_URL')) return `secret://${secret}/${key}`;
  return createHash('sha256').update(`${secret}/${key}`).digest('base64');
}

function findConfigMap(
  objects: K8sObject[],
  name: string,
  namespace: string | undefined,
): K8sObject | undefined {
  return objects.find(
    (object) =>
      object.kind === 'ConfigMap' && object.metadata.name === name && object.metadata.namespace === namespace,
  );
}

/**
 * The environment a container gets: envFrom ConfigMaps, then env entries (later wins), as the kubelet
 * builds it. Missing ConfigMaps or keys, and `envFrom: secretRef` (which hides the variables it
 * brings, so nothing could check them), are problems.
 */
export function resolveContainerEnv(
  objects: K8sObject[],
  namespace: string | undefined,
  container: JsonObject,
  owner: string,
): ResolvedEnvironment {
  const resolved: ResolvedEnvironment = { values: {}, sources: {}, problems: [] };
  for (const source of (container.envFrom as Json[] | undefined) ?? []) {
    const configMapName = get(source, 'configMapRef', 'name');
    if (typeof configMapName === 'string') {
      const configMap = findConfigMap(objects, configMapName, namespace);
      if (!configMap) {
        resolved.problems.push(
          `${owner}: envFrom names ConfigMap ${configMapName}, which is not in the build`,
        );
        continue;
      }
      for (const [key, value] of Object.entries((configMap.data as JsonObject | undefined) ?? {})) {
        resolved.values[key] = text(value);
        resolved.sources[key] = `ConfigMap ${configMapName}`;
      }
    } else if (get(source, 'secretRef') !== undefined) {
      resolved.problems.push(
        `${owner}: envFrom secretRef hides which variables it sets; use secretKeyRef per variable`,
      );
    }
  }
  for (const variable of (container.env as Json[] | undefined) ?? []) {
    if (!isObject(variable) || typeof variable.name !== 'string') continue;
    const name = variable.name;
    if (typeof variable.value === 'string') {
      resolved.values[name] = variable.value;
      resolved.sources[name] = 'literal';
      continue;
    }
    const secret = get(variable, 'valueFrom', 'secretKeyRef');
    const configMapKey = get(variable, 'valueFrom', 'configMapKeyRef');
    if (isObject(secret) && typeof secret.name === 'string' && typeof secret.key === 'string') {
      resolved.values[name] = secretPlaceholder(name, secret.name, secret.key);
      resolved.sources[name] = `Secret ${secret.name}/${secret.key}`;
    } else if (
      isObject(configMapKey) &&
      typeof configMapKey.name === 'string' &&
      typeof configMapKey.key === 'string'
    ) {
      const value = get(findConfigMap(objects, configMapKey.name, namespace), 'data', configMapKey.key);
      if (value === undefined) {
        resolved.problems.push(
          `${owner}: ${name} names ConfigMap key ${configMapKey.name}/${configMapKey.key}, which does not exist`,
        );
      } else {
        resolved.values[name] = text(value);
        resolved.sources[name] = `ConfigMap ${configMapKey.name}`;
      }
    } else if (get(variable, 'valueFrom', 'fieldRef') !== undefined) {
      resolved.values[name] = `field:${String(get(variable, 'valueFrom', 'fieldRef', 'fieldPath'))}`;
      resolved.sources[name] = 'fieldRef';
    } else {
      resolved.problems.push(`${owner}: ${name} has neither a value nor a supported valueFrom`);
    }
  }
  return resolved;
}

const LOOPBACK = /(^|[/@[])(127\.\d+\.\d+\.\d+|localhost|::1)([\]:/]|$)/;

/**
 * Config paths a browser opens, not the process: the gateway's APP_URL (password reset links) is
 * rightly http://localhost:<port> where the ports are published on a laptop (compose).
 */
const BROWSER_FACING_PATHS = new Set(['appUrl']);

/** Paths in a loaded config whose string value points at a loopback address (unusable in a pod). */
export function loopbackValues(config: unknown, prefix = ''): string[] {
  if (BROWSER_FACING_PATHS.has(prefix)) return [];
  if (typeof config === 'string') return LOOPBACK.test(config) ? [`${prefix} = ${config}`] : [];
  if (Array.isArray(config))
    return config.flatMap((item, index) => loopbackValues(item, `${prefix}[${index}]`));
  if (isObject(config)) {
    return Object.entries(config).flatMap(([key, value]) =>
      loopbackValues(value, prefix ? `${prefix}.${key}` : key),
    );
  }
  return [];
}

/** The config a process builds from `environment`, or the reason it refuses it. */
export function tryLoadConfig(
  model: ProcessModel,
  environment: Record<string, string>,
): { config: unknown; error: string | undefined } {
  if (!model.loadConfig) return { config: undefined, error: undefined };
  try {
    return { config: model.loadConfig({ ...environment }), error: undefined };
  } catch (error) {
    return { config: undefined, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The variables of `environment` that the process cannot do without in a cluster: removing one makes
 * its config refuse to start, or fall back to a loopback address. Derived, not listed by hand.
 */
export function requiredVariables(model: ProcessModel, environment: Record<string, string>): string[] {
  return model.variables.filter((variable) => {
    if (!(variable in environment)) return false;
    const rest = { ...environment };
    delete rest[variable];
    const { config, error } = tryLoadConfig(model, rest);
    return error !== undefined || loopbackValues(config).length > 0;
  });
}

/** Listening ports in a loaded config: numeric properties named like `grpcPort`, `apiPort`. */
export function configuredPorts(config: unknown): number[] {
  if (!isObject(config)) return [];
  return Object.entries(config)
    .filter(([key, value]) => /Port$/.test(key) && typeof value === 'number')
    .map(([, value]) => value as number);
}
