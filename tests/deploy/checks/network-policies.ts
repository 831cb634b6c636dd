/**
 * A small NetworkPolicy evaluator (the Kubernetes semantics for podSelector, namespaceSelector,
 * ipBlock, ports and policyTypes) and the check built on it: compute every connection the policies
 * of a build allow between Tix pods, the backing stores, DNS, the ingress controller, the internet
 * and a stranger pod, and compare that with the connections Tix is meant to make.
 */
import {
  get,
  isObject,
  podTemplate,
  containersOf,
  text,
  type Json,
  type K8sObject,
} from '../kustomize/objects.js';
import { podLabels, selectorMatches } from './workloads.js';

export interface Endpoint {
  name: string;
  /** Undefined for addresses outside the cluster. */
  namespace: string | undefined;
  labels: Record<string, string>;
  ip: string;
  /** Ports it listens on (destinations only). */
  ports: number[];
  /** Of `ports`, those serving /metrics (container ports named "metrics"): reported apart. */
  metricsPorts?: number[];
  protocol?: 'TCP' | 'UDP';
}

/**
 * Where the checks imagine what Tix talks to. Pod and in-cluster addresses are private (10/8), so
 * the webhook sender's "public addresses only" rule must not reach them.
 */
export const OUTSIDE_ENDPOINTS: Endpoint[] = [
  {
    name: 'postgresql',
    namespace: 'databases',
    labels: { 'cnpg.io/cluster': 'tix' },
    ip: '10.0.2.10',
    ports: [5432],
  },
  {
    name: 'rabbitmq',
    namespace: 'messaging',
    labels: { 'app.kubernetes.io/name': 'tix-rabbitmq' },
    ip: '10.0.2.11',
    ports: [5672],
  },
  {
    name: 'redis',
    namespace: 'caches',
    labels: { 'app.kubernetes.io/name': 'redis' },
    ip: '10.0.2.12',
    ports: [6379],
  },
  {
    name: 'minio',
    namespace: 'tix-storage',
    labels: { 'v1.min.io/tenant': 'tix' },
    ip: '10.0.2.13',
    ports: [443],
  },
  {
    name: 'kube-dns',
    namespace: 'kube-system',
    labels: { 'k8s-app': 'kube-dns' },
    ip: '10.0.0.10',
    ports: [53],
    protocol: 'UDP',
  },
  // An OpenAI-compatible model server (Ollama) the assistant may be pointed at; reached only
  // through the optional component k8s/components/ai-model-server.
  {
    name: 'model-server',
    namespace: 'ai-models',
    labels: { 'app.kubernetes.io/name': 'ollama' },
    ip: '10.0.2.14',
    ports: [11434],
  },
  { name: 'internet', namespace: undefined, labels: {}, ip: '203.0.113.10', ports: [443] },
];

/**
 * Sources that are not Tix pods: the ingress controller, Prometheus (kube-prometheus-stack's labels
 * in the monitoring namespace), and a pod of some other namespace.
 */
export const OUTSIDE_SOURCES: Endpoint[] = [
  {
    name: 'ingress-controller',
    namespace: 'ingress-nginx',
    labels: { 'app.kubernetes.io/name': 'ingress-nginx' },
    ip: '10.0.3.10',
    ports: [],
  },
  {
    name: 'prometheus',
    namespace: 'monitoring',
    labels: { 'app.kubernetes.io/name': 'prometheus' },
    ip: '10.0.3.12',
    ports: [],
  },
  { name: 'stranger', namespace: 'default', labels: { app: 'stranger' }, ip: '10.0.3.11', ports: [] },
];

function ipv4ToNumber(ip: string): number | undefined {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255))
    return undefined;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

/** True when IPv4 `ip` is inside `cidr` (an IPv6 CIDR never contains an IPv4 address here). */
export function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/') as [string, string];
  const address = ipv4ToNumber(ip);
  const network = ipv4ToNumber(base);
  if (address === undefined || network === undefined) return false;
  const prefix = Number(bits);
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return (address & mask) >>> 0 === (network & mask) >>> 0;
}

function namespaceLabels(namespace: string): Record<string, string> {
  return { 'kubernetes.io/metadata.name': namespace };
}

/** Does one `from`/`to` entry of a rule (in a policy of `policyNamespace`) match `endpoint`? */
function peerMatches(peer: Json, policyNamespace: string, endpoint: Endpoint): boolean {
  if (!isObject(peer)) return false;
  if (isObject(peer.ipBlock)) {
    const block = peer.ipBlock;
    const except = (block.except as string[] | undefined) ?? [];
    return inCidr(endpoint.ip, text(block.cidr)) && !except.some((cidr) => inCidr(endpoint.ip, cidr));
  }
  if (endpoint.namespace === undefined) return false;
  const namespaceSelector = peer.namespaceSelector;
  const podSelector = peer.podSelector;
  const namespaceOk =
    namespaceSelector === undefined
      ? endpoint.namespace === policyNamespace
      : selectorMatches(namespaceSelector, namespaceLabels(endpoint.namespace));
  const podOk = podSelector === undefined || selectorMatches(podSelector, endpoint.labels);
  return namespaceOk && podOk;
}

function portMatches(ports: Json | undefined, port: number, protocol: string): boolean {
  if (!Array.isArray(ports) || ports.length === 0) return true;
  return ports.some((entry) => {
    if (!isObject(entry)) return false;
    if ((entry.protocol ?? 'TCP') !== protocol) return false;
    if (entry.port === undefined) return true;
    const end = typeof entry.endPort === 'number' ? entry.endPort : entry.port;
    return typeof entry.port === 'number' && port >= entry.port && port <= (end as number);
  });
}

function policyTypes(policy: K8sObject): string[] {
  const declared = get(policy, 'spec', 'policyTypes');
  if (Array.isArray(declared)) return declared.map(String);
  return get(policy, 'spec', 'egress') === undefined ? ['Ingress'] : ['Ingress', 'Egress'];
}

function selecting(policies: K8sObject[], endpoint: Endpoint, type: 'Ingress' | 'Egress'): K8sObject[] {
  return policies.filter(
    (policy) =>
      endpoint.namespace !== undefined &&
      (policy.metadata.namespace ?? '') === endpoint.namespace &&
      selectorMatches(get(policy, 'spec', 'podSelector') ?? {}, endpoint.labels) &&
      policyTypes(policy).includes(type),
  );
}

function ruleAllows(
  rule: Json,
  direction: 'from' | 'to',
  policyNamespace: string,
  peer: Endpoint,
  port: number,
  protocol: string,
): boolean {
  if (!isObject(rule)) return false;
  const peers = rule[direction];
  const peerOk =
    !Array.isArray(peers) ||
    peers.length === 0 ||
    peers.some((entry) => peerMatches(entry, policyNamespace, peer));
  return peerOk && portMatches(rule.ports, port, protocol);
}

/** True when the policies let `from` open a connection to `to` on `port`. */
export function connectionAllowed(
  policies: K8sObject[],
  from: Endpoint,
  to: Endpoint,
  port: number,
): boolean {
  const protocol = to.protocol ?? 'TCP';
  const egress = selecting(policies, from, 'Egress');
  const egressOk =
    egress.length === 0 ||
    egress.some((policy) =>
      ((get(policy, 'spec', 'egress') as Json[] | undefined) ?? []).some((rule) =>
        ruleAllows(rule, 'to', policy.metadata.namespace ?? '', to, port, protocol),
      ),
    );
  if (!egressOk) return false;
  const ingress = selecting(policies, to, 'Ingress');
  return (
    ingress.length === 0 ||
    ingress.some((policy) =>
      ((get(policy, 'spec', 'ingress') as Json[] | undefined) ?? []).some((rule) =>
        ruleAllows(rule, 'from', policy.metadata.namespace ?? '', from, port, protocol),
      ),
    )
  );
}

/** The pods of a build's workloads as endpoints (name = their app.kubernetes.io/name). */
export function workloadEndpoints(objects: K8sObject[]): Endpoint[] {
  return objects
    .filter((object) => object.kind === 'Deployment' || object.kind === 'Job')
    .map((workload, index) => {
      const labels = podLabels(workload);
      const declared = containersOf(get(podTemplate(workload), 'spec')).flatMap(
        (container) => (container.ports as Json[] | undefined) ?? [],
      );
      const ports = declared.map((port) => Number(get(port, 'containerPort')));
      const metricsPorts = declared
        .filter((port) => get(port, 'name') === 'metrics')
        .map((port) => Number(get(port, 'containerPort')));
      return {
        name: labels['app.kubernetes.io/name'] ?? workload.metadata.name,
        namespace: workload.metadata.namespace ?? '',
        labels,
        ip: `10.0.1.${index + 1}`,
        ports,
        metricsPorts,
      };
    });
}

/**
 * Every allowed connection to or from a Tix pod, as "source -> destination" (pod or outside endpoint);
 * one that reaches only a pod's /metrics port reads "source -> destination:metrics", so a scraper let
 * onto a service port, or a peer let onto the metrics port, shows as a connection of its own.
 */
export function allowedConnections(objects: K8sObject[]): Set<string> {
  const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
  const pods = workloadEndpoints(objects);
  const connections = new Set<string>();
  const isPod = (endpoint: Endpoint) => pods.includes(endpoint);
  for (const from of [...pods, ...OUTSIDE_SOURCES]) {
    for (const to of [...pods.filter((pod) => pod.ports.length > 0), ...OUTSIDE_ENDPOINTS]) {
      // Traffic between two outsiders is not Tix's policies' business.
      if (from === to || (!isPod(from) && !isPod(to))) continue;
      const metricsPorts = to.metricsPorts ?? [];
      const allowed = (port: number) => connectionAllowed(policies, from, to, port);
      if (to.ports.filter((port) => !metricsPorts.includes(port)).some(allowed))
        connections.add(`${from.name} -> ${to.name}`);
      if (metricsPorts.some(allowed)) connections.add(`${from.name} -> ${to.name}:metrics`);
    }
  }
  return connections;
}

function isDefaultDeny(policy: K8sObject): boolean {
  const selector = get(policy, 'spec', 'podSelector');
  const emptySelector = isObject(selector) && Object.keys(selector).length === 0;
  const types = policyTypes(policy);
  const noRules = (name: string) => {
    const rules = get(policy, 'spec', name);
    return rules === undefined || (Array.isArray(rules) && rules.length === 0);
  };
  return (
    emptySelector &&
    types.includes('Ingress') &&
    types.includes('Egress') &&
    noRules('ingress') &&
    noRules('egress')
  );
}

/**
 * Problems of a build's network policies: a default-deny policy per namespace with Tix pods, and
 * allowed connections equal to `expected` ("source -> destination" strings).
 */
export function networkPolicyProblems(objects: K8sObject[], expected: Set<string>): string[] {
  const problems: string[] = [];
  const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
  const namespaces = new Set(workloadEndpoints(objects).map((pod) => pod.namespace));
  for (const namespace of namespaces) {
    if (
      !policies.some((policy) => (policy.metadata.namespace ?? '') === namespace && isDefaultDeny(policy))
    ) {
      problems.push(
        `namespace ${namespace || '(none)'}: no default-deny NetworkPolicy (podSelector {}, Ingress and Egress, no rules)`,
      );
    }
  }
  const actual = allowedConnections(objects);
  for (const connection of [...actual].sort()) {
    if (!expected.has(connection)) problems.push(`allowed but not intended: ${connection}`);
  }
  for (const connection of [...expected].sort()) {
    if (!actual.has(connection)) problems.push(`intended but blocked: ${connection}`);
  }
  return problems;
}
