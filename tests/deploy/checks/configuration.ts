/**
 * Each Deployment against its process's own configuration: the environment the manifests give it
 * is accepted (under the NODE_ENV they set) and leaves nothing pointing at a loopback address; the
 * ports the config listens on are container ports and what the probes check; the termination grace
 * period covers the preStop pause plus the process's SHUTDOWN_GRACE_MS.
 */
import {
  get,
  isObject,
  objectRef,
  podTemplate,
  text,
  type Json,
  type JsonObject,
  type K8sObject,
} from '../kustomize/objects.js';
import type { DeployableName } from '../../../deploy/images/deployables.js';
import {
  configuredPorts,
  loopbackValues,
  resolveContainerEnv,
  tryLoadConfig,
  type ProcessModel,
  type ResolvedEnvironment,
} from './processes.js';
import { resolveTargetPort } from './workloads.js';

/** The process's container of a Deployment: the one named like it, else the first. */
export function mainContainer(deployment: K8sObject): JsonObject | undefined {
  const containers = (
    (get(podTemplate(deployment), 'spec', 'containers') as Json[] | undefined) ?? []
  ).filter(isObject);
  return containers.find((container) => container.name === deployment.metadata.name) ?? containers[0];
}

/** The environment of a Deployment's process container as the kubelet would build it. */
export function deploymentEnvironment(objects: K8sObject[], deployment: K8sObject): ResolvedEnvironment {
  return resolveContainerEnv(
    objects,
    deployment.metadata.namespace,
    mainContainer(deployment) ?? {},
    objectRef(deployment),
  );
}

/** Milliseconds a preStop hook waits: `sleep` action, or the node `setTimeout(..., N)` pause. */
export function preStopDelayMs(container: JsonObject): number {
  const sleep = get(container, 'lifecycle', 'preStop', 'sleep', 'seconds');
  if (typeof sleep === 'number') return sleep * 1000;
  const command = ((get(container, 'lifecycle', 'preStop', 'exec', 'command') as Json[] | undefined) ?? [])
    .map(text)
    .join(' ');
  const match = /setTimeout\([^,]*,\s*(\d+)\s*\)/.exec(command);
  return match ? Number(match[1]) : 0;
}

function probePort(deployment: K8sObject, probe: unknown): number | undefined {
  const grpc = get(probe, 'grpc', 'port');
  if (typeof grpc === 'number') return grpc;
  const port = get(probe, 'httpGet', 'port') ?? get(probe, 'tcpSocket', 'port');
  return port === undefined ? undefined : resolveTargetPort(deployment, port);
}

/** Problems of every Deployment against the model of the process it runs. */
export function configurationProblems(
  objects: K8sObject[],
  models: Map<DeployableName, ProcessModel>,
): string[] {
  const problems: string[] = [];
  for (const deployment of objects.filter((object) => object.kind === 'Deployment')) {
    const ref = objectRef(deployment);
    const model = models.get(deployment.metadata.name as DeployableName);
    const container = mainContainer(deployment);
    if (!model || !container) {
      problems.push(`${ref}: not a Tix deployable (gateway or a service of the fleet map) with a container`);
      continue;
    }
    const environment = deploymentEnvironment(objects, deployment);
    problems.push(...environment.problems);
    const { config, error } = tryLoadConfig(model, environment.values);
    if (error)
      problems.push(`${ref}: ${model.name} refuses its environment: ${error.replace(/\s*\n\s*/g, '; ')}`);
    const unset = model.variables.filter((variable) => !(variable in environment.values));
    for (const value of loopbackValues(config)) {
      problems.push(
        `${ref}: ${value} is a loopback address in a pod; set the variable behind it (unset: ${unset.join(', ')})`,
      );
    }

    // A refused config says nothing about ports; a service not built yet listens on its fleet port.
    const ports = model.loadConfig
      ? config === undefined
        ? []
        : configuredPorts(config)
      : model.defaultPorts;
    if (
      !model.loadConfig &&
      environment.values.GRPC_PORT &&
      Number(environment.values.GRPC_PORT) !== ports[0]
    ) {
      problems.push(
        `${ref}: GRPC_PORT ${environment.values.GRPC_PORT} is not the fleet port ${ports[0]} of ${model.name}`,
      );
    }
    const containerPorts = ((container.ports as Json[] | undefined) ?? []).map((port) =>
      get(port, 'containerPort'),
    );
    for (const port of new Set(ports)) {
      if (!containerPorts.includes(port))
        problems.push(`${ref}: ${model.name} listens on ${port}, which is not a containerPort`);
    }
    // /metrics answers while the service itself is broken: probes must check the serving ports.
    const metricsPort = get(config, 'metricsPort');
    const servingPorts = ports.filter((port) => port !== metricsPort);
    for (const probeName of ['readinessProbe', 'livenessProbe']) {
      const probe = container[probeName];
      if (probe === undefined || servingPorts.length === 0) continue;
      const port = probePort(deployment, probe);
      if (port === undefined || !servingPorts.includes(port)) {
        problems.push(
          `${ref}: ${probeName} checks port ${String(port)}, not one ${model.name} serves on (${servingPorts.join(', ')})`,
        );
      }
    }

    const configuredGrace = get(config, 'shutdownGraceMs');
    const graceMs =
      typeof configuredGrace === 'number'
        ? configuredGrace
        : Number(environment.values.SHUTDOWN_GRACE_MS ?? 10_000);
    const preStopMs = preStopDelayMs(container);
    const periodSeconds = Number(get(podTemplate(deployment), 'spec', 'terminationGracePeriodSeconds') ?? 30);
    if (periodSeconds * 1000 <= preStopMs + graceMs) {
      problems.push(
        `${ref}: terminationGracePeriodSeconds ${periodSeconds} does not cover preStop ${preStopMs} ms + SHUTDOWN_GRACE_MS ${graceMs} ms`,
      );
    }
  }
  return problems;
}

/**
 * Gateway replicas must share their fast state (sessions, rate limits, idempotency records) through
 * Redis: a gateway that may run more than one replica needs REDIS_URL (docs/deployment.md,
 * "Scaling each service").
 */
export function sharedStateProblems(
  objects: K8sObject[],
  models: Map<DeployableName, ProcessModel>,
): string[] {
  const gateway = objects.find(
    (object) => object.kind === 'Deployment' && object.metadata.name === 'gateway',
  );
  const model = models.get('gateway');
  if (!gateway || !model) return [];
  const autoscaler = objects.find(
    (object) =>
      object.kind === 'HorizontalPodAutoscaler' &&
      get(object, 'spec', 'scaleTargetRef', 'name') === 'gateway',
  );
  const maxReplicas = Number(get(autoscaler, 'spec', 'maxReplicas') ?? get(gateway, 'spec', 'replicas') ?? 1);
  const { config } = tryLoadConfig(model, deploymentEnvironment(objects, gateway).values);
  if (maxReplicas > 1 && !get(config, 'redisUrl')) {
    return [
      `${objectRef(gateway)}: up to ${maxReplicas} replicas but no REDIS_URL, so replicas would not share sessions`,
    ];
  }
  return [];
}
