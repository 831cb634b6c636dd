/**
 * The Ingress routes the API host and the session (app) host to the gateway, through a Service port
 * that reaches the gateway's listener, and the gateway recognises each host in the role it is meant
 * for (API_HOSTS / APP_HOSTS, or the listener's port when no host lists are set).
 */
import type { DeployableName } from '../../../deploy/images/deployables.js';
import { get, isObject, objectRef, type Json, type K8sObject } from '../kustomize/objects.js';
import { deploymentEnvironment } from './configuration.js';
import { tryLoadConfig, type ProcessModel } from './processes.js';
import { podLabels, resolveTargetPort, selectorMatches } from './workloads.js';

interface GatewayRoles {
  apiHosts: string[];
  appHosts: string[];
  apiPort: number;
  appPort: number;
}

function gatewayRoles(config: unknown): GatewayRoles | undefined {
  if (!isObject(config)) return undefined;
  return {
    apiHosts: (config.apiHosts as string[] | undefined) ?? [],
    appHosts: (config.appHosts as string[] | undefined) ?? [],
    apiPort: Number(config.apiPort),
    appPort: Number(config.appPort),
  };
}

/** Problems of the Ingress objects of a build, against the gateway's own configuration. */
export function ingressProblems(objects: K8sObject[], models: Map<DeployableName, ProcessModel>): string[] {
  const problems: string[] = [];
  const gateway = objects.find(
    (object) => object.kind === 'Deployment' && object.metadata.name === 'gateway',
  );
  const ingresses = objects.filter((object) => object.kind === 'Ingress');
  if (!gateway) return ['no gateway Deployment in the build'];
  if (ingresses.length === 0) return ['no Ingress in the build'];
  const model = models.get('gateway');
  const { config, error } = model
    ? tryLoadConfig(model, deploymentEnvironment(objects, gateway).values)
    : { config: undefined, error: 'no model' };
  const roles = gatewayRoles(config);
  if (!roles) return [`${objectRef(gateway)}: cannot load the gateway configuration (${String(error)})`];

  const reached = { api: [] as string[], app: [] as string[] };
  for (const ingress of ingresses) {
    const ref = objectRef(ingress);
    const tlsHosts = ((get(ingress, 'spec', 'tls') as Json[] | undefined) ?? []).flatMap(
      (entry) => (get(entry, 'hosts') as string[] | undefined) ?? [],
    );
    for (const rule of ((get(ingress, 'spec', 'rules') as Json[] | undefined) ?? []).filter(isObject)) {
      const host = typeof rule.host === 'string' ? rule.host.toLowerCase() : undefined;
      if (!host) {
        problems.push(`${ref}: a rule without a host (the gateway tells its roles apart by host)`);
        continue;
      }
      if (!tlsHosts.includes(host)) problems.push(`${ref}: ${host} is not covered by spec.tls`);
      for (const entry of ((get(rule, 'http', 'paths') as Json[] | undefined) ?? []).filter(isObject)) {
        const serviceName = get(entry, 'backend', 'service', 'name');
        const service = objects.find(
          (object) =>
            object.kind === 'Service' &&
            object.metadata.name === serviceName &&
            object.metadata.namespace === ingress.metadata.namespace,
        );
        if (
          !service ||
          !selectorMatches({ matchLabels: get(service, 'spec', 'selector') }, podLabels(gateway))
        ) {
          problems.push(
            `${ref}: ${host} goes to Service ${String(serviceName)}, which does not select the gateway`,
          );
          continue;
        }
        const wanted = get(entry, 'backend', 'service', 'port');
        const servicePort = ((get(service, 'spec', 'ports') as Json[] | undefined) ?? []).find(
          (port) => get(port, 'name') === get(wanted, 'name') || get(port, 'port') === get(wanted, 'number'),
        );
        const containerPort = servicePort
          ? resolveTargetPort(gateway, get(servicePort, 'targetPort') ?? get(servicePort, 'port'))
          : undefined;
        if (containerPort === undefined) {
          problems.push(`${ref}: ${host} names a Service port that reaches no gateway container port`);
          continue;
        }
        const hostLists = roles.apiHosts.length > 0 || roles.appHosts.length > 0;
        const role = hostLists
          ? roles.apiHosts.includes(host)
            ? 'api'
            : roles.appHosts.includes(host)
              ? 'app'
              : undefined
          : containerPort === roles.apiPort
            ? 'api'
            : containerPort === roles.appPort
              ? 'app'
              : undefined;
        if (!role) problems.push(`${ref}: the gateway serves ${host} in no role (API_HOSTS / APP_HOSTS)`);
        else if (containerPort !== (role === 'api' ? roles.apiPort : roles.appPort)) {
          problems.push(
            `${ref}: ${host} (${role} role) reaches port ${containerPort}, not the gateway's ${role} listener`,
          );
        } else reached[role].push(host);
      }
    }
  }
  if (reached.api.length === 0) problems.push('no Ingress host reaches the gateway in its API role');
  if (reached.app.length === 0)
    problems.push('no Ingress host reaches the gateway in its app (session) role');
  for (const host of [...roles.apiHosts, ...roles.appHosts]) {
    if (![...reached.api, ...reached.app].includes(host))
      problems.push(`the gateway serves ${host}, but no Ingress rule routes it`);
  }
  return problems;
}
