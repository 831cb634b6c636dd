/**
 * The Kubernetes manifests against the fleet map (protos/src/fleet.ts), which YAML cannot import:
 * every Deployment's container ports, probes, port variables and Prometheus annotation carry the
 * ports FLEET gives its process, the Prometheus policy opens exactly the fleet's metrics ports, and
 * a queue a manifest names is one its service consumes. Each function returns problems as sentences
 * naming the object; none means the manifests say what the fleet map says.
 */
import {
  defaultMetricsPort,
  FLEET,
  GATEWAY_DEFAULT_PORTS,
  SERVICE_NAMES,
  type FleetProcessName,
  type ServiceName,
} from '@tix/protos';
import {
  get,
  isObject,
  objectRef,
  podTemplate,
  text,
  type Json,
  type K8sObject,
} from '../kustomize/objects.js';
import { findContainer } from '../support.js';

const isService = (name: string): name is ServiceName => (SERVICE_NAMES as string[]).includes(name);

/** The port a process serves its traffic on: gRPC for a service, the API host for the gateway. */
function servingPort(name: FleetProcessName): number {
  return name === 'gateway' ? GATEWAY_DEFAULT_PORTS.api : FLEET[name].grpcPort;
}

/** The containerPort named `portName` of a container, if any. */
function namedPort(container: Record<string, Json>, portName: string): unknown {
  const ports = ((container.ports as Json[] | undefined) ?? []).filter(isObject);
  return ports.find((port) => port.name === portName)?.containerPort;
}

/** The literal value of env variable `name` of a container, if it sets one. */
function envValue(container: Record<string, Json>, name: string): string | undefined {
  const entry = ((container.env as Json[] | undefined) ?? [])
    .filter(isObject)
    .find((variable) => variable.name === name);
  return typeof entry?.value === 'string' ? entry.value : undefined;
}

/** Ports and port variables of every Deployment of a Tix process against FLEET. */
export function fleetPortProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const deployment of objects.filter((object) => object.kind === 'Deployment')) {
    const name = deployment.metadata.name;
    if (name !== 'gateway' && !isService(name)) continue;
    const ref = objectRef(deployment);
    const container = findContainer(deployment);
    const serving = servingPort(name);
    const metrics = defaultMetricsPort(name);
    const expect = (what: string, actual: unknown, expected: number) => {
      if (actual !== expected && actual !== String(expected))
        problems.push(`${ref}: ${what} is ${String(actual)}, not the fleet map's ${expected}`);
    };
    expect(
      `containerPort ${name === 'gateway' ? 'http' : 'grpc'}`,
      namedPort(container, name === 'gateway' ? 'http' : 'grpc'),
      serving,
    );
    expect('containerPort metrics', namedPort(container, 'metrics'), metrics);
    expect('METRICS_PORT', envValue(container, 'METRICS_PORT'), metrics);
    expect(
      'annotation prometheus.io/port',
      get(podTemplate(deployment), 'metadata', 'annotations', 'prometheus.io/port'),
      metrics,
    );
    if (name === 'gateway') {
      expect('GATEWAY_API_PORT', envValue(container, 'GATEWAY_API_PORT'), serving);
    } else {
      expect('GRPC_PORT', envValue(container, 'GRPC_PORT'), serving);
      for (const probe of ['readinessProbe', 'livenessProbe'])
        expect(`${probe} port`, get(container, probe, 'grpc', 'port'), serving);
    }
  }
  return problems;
}

/**
 * The Prometheus NetworkPolicy (allow-prometheus) selects every Tix process and opens the range of
 * their metrics ports, no wider: from the lowest to the highest of the fleet map's.
 */
export function metricsPolicyProblems(objects: K8sObject[]): string[] {
  const policy = objects.find(
    (object) => object.kind === 'NetworkPolicy' && object.metadata.name === 'allow-prometheus',
  );
  if (!policy) return ['NetworkPolicy allow-prometheus: missing'];
  const ref = objectRef(policy);
  const problems: string[] = [];
  const processes: FleetProcessName[] = ['gateway', ...SERVICE_NAMES];
  const metricsPorts = processes.map(defaultMetricsPort);
  const expected = { port: Math.min(...metricsPorts), endPort: Math.max(...metricsPorts) };
  // Contiguous, so that one range opens them all and nothing between them.
  const range = expected.endPort - expected.port + 1;
  if (new Set(metricsPorts).size !== range)
    problems.push(`fleet map: the metrics ports ${metricsPorts.join(', ')} are not one contiguous range`);
  const ports = ((get(policy, 'spec', 'ingress', 0, 'ports') as Json[] | undefined) ?? []).filter(isObject);
  const opened = ports.map((port) => `${text(port.port)}-${text(port.endPort ?? port.port)}`);
  if (opened.join(', ') !== `${expected.port}-${expected.endPort}`)
    problems.push(
      `${ref}: opens ${opened.join(', ') || 'no port'}, not the fleet's metrics ports ${expected.port}-${expected.endPort}`,
    );
  const selected = (
    (get(policy, 'spec', 'podSelector', 'matchExpressions', 0, 'values') as string[] | undefined) ?? []
  ).slice();
  if ([...selected].sort().join(', ') !== [...processes].sort().join(', '))
    problems.push(
      `${ref}: selects ${selected.join(', ')}, not every process of the fleet (${processes.join(', ')})`,
    );
  return problems;
}

/** A queue a service's manifest names (in its comments: "queue <name>") is one FLEET says it consumes. */
export function queueMentionProblems(
  manifests: { service: ServiceName; file: string; yaml: string }[],
): string[] {
  const problems: string[] = [];
  for (const { service, file, yaml } of manifests) {
    for (const match of yaml.matchAll(/\bqueues? ([a-z][a-z.-]*[a-z])/g)) {
      const queue = match[1]!;
      if (!Object.keys(FLEET[service].queues).includes(queue))
        problems.push(`${file}: names queue ${queue}, which ${service} does not consume in the fleet map`);
    }
  }
  return problems;
}
