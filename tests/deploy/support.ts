/**
 * Shared by the deploy tests: the rendered overlays, the process models, lookups by kind and name,
 * and the connections the fleet is meant to make (the network policies are checked against them).
 */
import path from 'node:path';
import { SERVICE_NAMES, serviceAddressVariable } from '@tix/protos';
import { REPO_ROOT, type DeployableName } from '../../deploy/images/deployables.js';
import {
  clone,
  get,
  isObject,
  podTemplate,
  type Json,
  type JsonObject,
  type K8sObject,
} from './kustomize/objects.js';
import { renderKustomization } from './kustomize/render.js';
import { loadProcessModels, type ProcessModel } from './checks/processes.js';

export const K8S_DIR = path.join(REPO_ROOT, 'k8s');
export const OVERLAYS = ['development', 'production'] as const;
export type Overlay = (typeof OVERLAYS)[number];

const rendered = new Map<Overlay, K8sObject[]>();

/** A fresh copy of an overlay's build (rendered once per run). */
export function renderOverlay(overlay: Overlay): K8sObject[] {
  if (!rendered.has(overlay))
    rendered.set(overlay, renderKustomization(path.join(K8S_DIR, 'overlays', overlay)));
  return clone(rendered.get(overlay)!);
}

let models: Promise<Map<DeployableName, ProcessModel>> | undefined;

/** The models of every deployable, from their config modules (loaded once per run). */
export function processModels(): Promise<Map<DeployableName, ProcessModel>> {
  models ??= loadProcessModels();
  return models;
}

/** The object of `kind` named `name`; throws when it is missing. */
export function findObject(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name} in the build`);
  return found;
}

/** The container named `name` of a workload (default: the workload's own name). */
export function findContainer(workload: K8sObject, name = workload.metadata.name): JsonObject {
  const containers = ((get(podTemplate(workload), 'spec', 'containers') as Json[] | undefined) ?? []).filter(
    isObject,
  );
  const found = containers.find((container) => container.name === name);
  if (!found) throw new Error(`no container ${name} in ${workload.kind}/${workload.metadata.name}`);
  return found;
}

/** Which services each deployable calls over gRPC (the brief's map; checked against the configs). */
export const INTENDED_CALLS: Record<DeployableName, DeployableName[]> = {
  gateway: [
    'lookup',
    'tickets',
    'comments',
    'attachments',
    'webhooks',
    'activity',
    'ai',
    'mail',
    'customers',
    'sla',
  ],
  lookup: ['tickets', 'comments'],
  tickets: ['lookup'],
  comments: ['tickets'],
  attachments: ['tickets'],
  webhooks: [],
  activity: ['lookup'],
  ai: ['lookup', 'tickets', 'comments'],
  mail: ['lookup', 'tickets', 'comments', 'attachments', 'customers'],
  customers: [],
  sla: ['lookup'],
};

/**
 * Calls made from a deployable's pod by the admin CLI its image carries (`kubectl exec ... cli.mjs`),
 * not by its process, so no config reads their addresses: `pnpm tix ai eval` asks the assistant.
 */
export const CLI_CALLS: Partial<Record<DeployableName, DeployableName[]>> = {
  lookup: ['ai'],
};

/** What each deployable reaches outside the fleet (names of OUTSIDE_ENDPOINTS). */
export const INTENDED_OUTSIDE: Record<DeployableName, string[]> = {
  gateway: ['rabbitmq', 'redis'],
  lookup: ['postgresql', 'rabbitmq'],
  tickets: ['postgresql', 'rabbitmq'],
  comments: ['postgresql', 'rabbitmq'],
  attachments: ['postgresql', 'rabbitmq', 'minio'],
  webhooks: ['postgresql', 'rabbitmq', 'internet'],
  activity: ['postgresql', 'rabbitmq'],
  // Never the model server by default: only the optional ai-model-server component opens it.
  ai: ['postgresql', 'rabbitmq'],
  mail: ['postgresql', 'rabbitmq', 'minio'],
  // Publishes customer.merged through its outbox (the ticket service re-points tickets).
  customers: ['postgresql', 'rabbitmq'],
  sla: ['postgresql', 'rabbitmq'],
};

/** The services a process's config reads an address for: who it calls, from its own code. */
export function callsReadFromConfig(model: ProcessModel): string[] {
  return SERVICE_NAMES.filter((name) => model.variables.includes(serviceAddressVariable(name)));
}

/** Every connection the fleet is meant to make, as "source -> destination". */
export function intendedConnections(): Set<string> {
  const connections = new Set<string>(['ingress-controller -> gateway']);
  for (const [name, callees] of Object.entries(INTENDED_CALLS)) {
    for (const callee of [...callees, ...(CLI_CALLS[name as DeployableName] ?? [])])
      connections.add(`${name} -> ${callee}`);
    for (const outside of INTENDED_OUTSIDE[name as DeployableName]) connections.add(`${name} -> ${outside}`);
    connections.add(`${name} -> kube-dns`);
    // Prometheus scrapes every process, on its metrics port only.
    connections.add(`prometheus -> ${name}:metrics`);
  }
  for (const service of SERVICE_NAMES) {
    connections.add(`${service}-migrate -> postgresql`);
    connections.add(`${service}-migrate -> kube-dns`);
  }
  return connections;
}

/** The production build with `change` applied to a copy. */
export function productionWith(change: (objects: K8sObject[]) => void): K8sObject[] {
  const objects = renderOverlay('production');
  change(objects);
  return objects;
}

/** The Deployment `name` of a build. */
export function deployment(objects: K8sObject[], name: string): K8sObject {
  return findObject(objects, 'Deployment', name);
}

/** The pod spec of a workload. */
export function podSpec(workload: K8sObject): JsonObject {
  return get(podTemplate(workload), 'spec') as JsonObject;
}

/** Removes env variable `name` from a container. */
export function removeEnv(container: JsonObject, name: string): void {
  container.env = ((container.env as Json[]) ?? []).filter((entry) => get(entry, 'name') !== name);
}

/** Removes the object `kind`/`name` from a build (it must be there). */
export function removeObject(objects: K8sObject[], kind: string, name: string): void {
  const index = objects.findIndex((object) => object.kind === kind && object.metadata.name === name);
  if (index === -1) throw new Error(`no ${kind}/${name} in the build`);
  objects.splice(index, 1);
}

/** The generated ConfigMap whose name starts with `prefix-` (names carry a hash suffix). */
export function configMapNamed(objects: K8sObject[], prefix: string): K8sObject {
  const found = objects.find(
    (object) => object.kind === 'ConfigMap' && object.metadata.name.startsWith(`${prefix}-`),
  );
  if (!found) throw new Error(`no ConfigMap ${prefix}-*`);
  return found;
}
