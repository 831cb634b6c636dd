/**
 * What every Tix workload must have, checked on rendered objects: probes, requests and limits, the
 * locked-down security context, a ServiceAccount without a token, a Service that selects its pods
 * and points at a real port, an autoscaler and a disruption budget aimed at it, and a pinned image.
 * Each function returns problems as sentences naming the object; none means the invariant holds.
 */
import {
  containersOf,
  get,
  isObject,
  objectRef,
  podTemplate,
  text,
  type Json,
  type JsonObject,
  type K8sObject,
} from '../kustomize/objects.js';

/** True when `selector` (matchLabels and matchExpressions) selects a pod with `labels`. */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  if (!isObject(selector)) return false;
  const matchLabels = (selector.matchLabels as Record<string, string> | undefined) ?? {};
  if (!Object.entries(matchLabels).every(([key, value]) => labels[key] === value)) return false;
  for (const expression of (selector.matchExpressions as Json[] | undefined) ?? []) {
    const key = String(get(expression, 'key'));
    const values = ((get(expression, 'values') as string[] | undefined) ?? []).map(String);
    const operator = get(expression, 'operator');
    const present = key in labels;
    if (operator === 'In' && !(present && values.includes(labels[key]!))) return false;
    if (operator === 'NotIn' && present && values.includes(labels[key]!)) return false;
    if (operator === 'Exists' && !present) return false;
    if (operator === 'DoesNotExist' && present) return false;
  }
  return true;
}

/** The labels of a workload's pods. */
export function podLabels(workload: K8sObject): Record<string, string> {
  return (get(podTemplate(workload), 'metadata', 'labels') as Record<string, string> | undefined) ?? {};
}

function sameNamespace(a: K8sObject, b: K8sObject): boolean {
  return (a.metadata.namespace ?? '') === (b.metadata.namespace ?? '');
}

/** The securityContext value that applies to a container: its own, else the pod's. */
function effective(container: JsonObject, podSpec: unknown, field: string): unknown {
  const own = get(container, 'securityContext', field);
  return own !== undefined ? own : get(podSpec, 'securityContext', field);
}

/** Security context, resources and ServiceAccount token of every container of a pod template. */
export function podHardeningProblems(workload: K8sObject): string[] {
  const problems: string[] = [];
  const ref = objectRef(workload);
  const spec = get(podTemplate(workload), 'spec');
  if (get(spec, 'automountServiceAccountToken') !== false) {
    problems.push(
      `${ref}: automountServiceAccountToken is not false (no Tix process talks to the Kubernetes API)`,
    );
  }
  if (get(spec, 'hostNetwork') === true || get(spec, 'hostPID') === true || get(spec, 'hostIPC') === true) {
    problems.push(`${ref}: shares a host namespace`);
  }
  for (const container of containersOf(spec)) {
    const where = `${ref} container ${text(container.name)}`;
    if (effective(container, spec, 'runAsNonRoot') !== true)
      problems.push(`${where}: runAsNonRoot is not true`);
    if (get(container, 'securityContext', 'readOnlyRootFilesystem') !== true) {
      problems.push(`${where}: readOnlyRootFilesystem is not true`);
    }
    if (get(container, 'securityContext', 'allowPrivilegeEscalation') !== false) {
      problems.push(`${where}: allowPrivilegeEscalation is not false`);
    }
    if (get(container, 'securityContext', 'privileged') === true) problems.push(`${where}: is privileged`);
    const dropped = (get(container, 'securityContext', 'capabilities', 'drop') as string[] | undefined) ?? [];
    if (!dropped.includes('ALL')) problems.push(`${where}: capabilities do not drop ALL`);
    const added = (get(container, 'securityContext', 'capabilities', 'add') as string[] | undefined) ?? [];
    if (added.length > 0) problems.push(`${where}: adds capabilities ${added.join(', ')}`);
    if (get(effective(container, spec, 'seccompProfile'), 'type') !== 'RuntimeDefault') {
      problems.push(`${where}: seccompProfile is not RuntimeDefault`);
    }
    const runAsUser = effective(container, spec, 'runAsUser');
    if (runAsUser === 0) problems.push(`${where}: runs as user 0`);
    for (const kind of ['requests', 'limits'] as const) {
      for (const resource of ['cpu', 'memory']) {
        if (get(container, 'resources', kind, resource) === undefined) {
          problems.push(`${where}: no ${resource} in resources.${kind}`);
        }
      }
    }
  }
  return problems;
}

/** Readiness and liveness probes on every (non-init) container of the Deployments. */
export function probeProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const deployment of objects.filter((object) => object.kind === 'Deployment')) {
    for (const container of (
      (get(podTemplate(deployment), 'spec', 'containers') as Json[] | undefined) ?? []
    ).filter(isObject)) {
      for (const probe of ['readinessProbe', 'livenessProbe']) {
        const value = container[probe];
        if (
          !isObject(value) ||
          !['grpc', 'httpGet', 'tcpSocket', 'exec'].some((handler) => handler in value)
        ) {
          problems.push(`${objectRef(deployment)} container ${text(container.name)}: no ${probe}`);
        }
      }
    }
  }
  return problems;
}

/** Resolves a Service targetPort (number or name) to a container port number of `workload`. */
export function resolveTargetPort(workload: K8sObject, targetPort: unknown): number | undefined {
  for (const container of containersOf(get(podTemplate(workload), 'spec'))) {
    for (const port of ((container.ports as Json[] | undefined) ?? []).filter(isObject)) {
      if (port.containerPort === targetPort || (typeof targetPort === 'string' && port.name === targetPort)) {
        return port.containerPort as number;
      }
    }
  }
  return undefined;
}

/**
 * Per Deployment: hardening (above), a ServiceAccount that exists and mounts no token, its selector
 * selecting its own pods, no fixed replica count (the autoscaler owns it), a Service selecting its
 * pods whose ports all reach a container port, an autoscaling/v2 HPA and a PDB aimed at it, and a
 * pinned image. Jobs get the hardening checks too.
 */
export function workloadProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const job of objects.filter((object) => object.kind === 'Job'))
    problems.push(...podHardeningProblems(job));
  for (const deployment of objects.filter((object) => object.kind === 'Deployment')) {
    const ref = objectRef(deployment);
    const labels = podLabels(deployment);
    problems.push(...podHardeningProblems(deployment));
    if (!selectorMatches(get(deployment, 'spec', 'selector'), labels)) {
      problems.push(`${ref}: spec.selector does not select its own pod template`);
    }
    const accountName = get(podTemplate(deployment), 'spec', 'serviceAccountName');
    const account = objects.find(
      (object) =>
        object.kind === 'ServiceAccount' &&
        object.metadata.name === accountName &&
        sameNamespace(object, deployment),
    );
    if (!account) problems.push(`${ref}: its ServiceAccount ${String(accountName)} is not in the build`);
    else if (account.automountServiceAccountToken !== false) {
      problems.push(`${objectRef(account)}: automountServiceAccountToken is not false`);
    }

    const services = objects.filter(
      (object) =>
        object.kind === 'Service' &&
        sameNamespace(object, deployment) &&
        isObject(get(object, 'spec', 'selector')) &&
        selectorMatches({ matchLabels: get(object, 'spec', 'selector') }, labels),
    );
    if (services.length === 0) problems.push(`${ref}: no Service selects its pods`);
    for (const service of services) {
      for (const port of ((get(service, 'spec', 'ports') as Json[] | undefined) ?? []).filter(isObject)) {
        if (resolveTargetPort(deployment, port.targetPort ?? port.port) === undefined) {
          problems.push(
            `${objectRef(service)}: port ${text(port.name ?? port.port)} targets ${text(port.targetPort)}, which no container of ${ref} exposes`,
          );
        }
      }
    }

    const autoscalers = objects.filter(
      (object) =>
        object.kind === 'HorizontalPodAutoscaler' &&
        sameNamespace(object, deployment) &&
        get(object, 'spec', 'scaleTargetRef', 'kind') === 'Deployment' &&
        get(object, 'spec', 'scaleTargetRef', 'name') === deployment.metadata.name,
    );
    if (autoscalers.length !== 1)
      problems.push(`${ref}: expected one HorizontalPodAutoscaler, found ${autoscalers.length}`);
    for (const autoscaler of autoscalers) {
      if (autoscaler.apiVersion !== 'autoscaling/v2')
        problems.push(`${objectRef(autoscaler)}: not autoscaling/v2`);
      const min = Number(get(autoscaler, 'spec', 'minReplicas') ?? 1);
      const max = Number(get(autoscaler, 'spec', 'maxReplicas'));
      if (!(min >= 1 && max >= min))
        problems.push(`${objectRef(autoscaler)}: needs 1 <= minReplicas <= maxReplicas`);
    }
    if (autoscalers.length > 0 && get(deployment, 'spec', 'replicas') !== undefined) {
      problems.push(`${ref}: sets spec.replicas although an autoscaler owns the count`);
    }

    const budgets = objects.filter(
      (object) =>
        object.kind === 'PodDisruptionBudget' &&
        sameNamespace(object, deployment) &&
        selectorMatches(get(object, 'spec', 'selector'), labels),
    );
    if (budgets.length !== 1)
      problems.push(`${ref}: expected one PodDisruptionBudget selecting its pods, found ${budgets.length}`);
  }
  return problems;
}

/**
 * Images of an environment (an overlay) must name a registry and a fixed tag or digest: no bare
 * logical names (tix-lookup) left unmapped, no `latest`.
 */
export function imageProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    for (const container of containersOf(get(podTemplate(object), 'spec'))) {
      const image = text(container.image ?? '');
      const pinned = /^[^/]+\/.+(:[\w.-]+|@sha256:[0-9a-f]{64})$/.test(image) && !/:latest$/.test(image);
      if (!pinned)
        problems.push(
          `${objectRef(object)} container ${text(container.name)}: image ${image} is not a registry image with a fixed tag`,
        );
    }
  }
  return problems;
}
