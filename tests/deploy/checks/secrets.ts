/**
 * Secrets are referenced, never written down: no Secret object in the repository or a build, every
 * credential-bearing variable comes from a secretKeyRef, and no ConfigMap carries a credential.
 */
import {
  get,
  isObject,
  objectRef,
  podTemplate,
  containersOf,
  text,
  type Json,
  type K8sObject,
} from '../kustomize/objects.js';

/** Variables that carry credentials (connection URLs include a password). */
export const CREDENTIAL_VARIABLE =
  /(PASSWORD|SECRET|TOKEN|_KEY$|_DATABASE_URL$|^DATABASE_URL$|^AMQP_URL$|^REDIS_URL$)/;

/** A URL with a password in it: scheme://user:password@host. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;

/** Problems of Secret objects, literal credentials in env, and credentials in ConfigMaps. */
export function secretProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    const ref = objectRef(object);
    if (object.kind === 'Secret') {
      problems.push(`${ref}: a Secret in the repository; create it in the cluster and reference it instead`);
    }
    if (object.kind === 'ConfigMap') {
      for (const [key, value] of Object.entries((object.data as Record<string, Json> | undefined) ?? {})) {
        if (CREDENTIAL_VARIABLE.test(key))
          problems.push(`${ref}: ${key} is a credential; it belongs in a Secret`);
        if (URL_WITH_PASSWORD.test(text(value))) problems.push(`${ref}: ${key} holds a URL with a password`);
      }
    }
    for (const container of containersOf(get(podTemplate(object), 'spec'))) {
      for (const variable of ((container.env as Json[] | undefined) ?? []).filter(isObject)) {
        const name = text(variable.name);
        const literal = variable.value;
        if (literal === undefined) continue;
        if (CREDENTIAL_VARIABLE.test(name)) {
          problems.push(
            `${ref} container ${text(container.name)}: ${name} is a literal; take it from a secretKeyRef`,
          );
        } else if (URL_WITH_PASSWORD.test(text(literal))) {
          problems.push(`${ref} container ${text(container.name)}: ${name} holds a URL with a password`);
        }
      }
    }
  }
  return problems;
}

/** Every Secret name and key the build references (what operators must create). */
export function referencedSecretKeys(objects: K8sObject[]): Map<string, Set<string>> {
  const references = new Map<string, Set<string>>();
  for (const object of objects) {
    for (const container of containersOf(get(podTemplate(object), 'spec'))) {
      for (const variable of (container.env as Json[] | undefined) ?? []) {
        const name = get(variable, 'valueFrom', 'secretKeyRef', 'name');
        const key = get(variable, 'valueFrom', 'secretKeyRef', 'key');
        if (typeof name === 'string' && typeof key === 'string') {
          references.set(name, (references.get(name) ?? new Set()).add(key));
        }
      }
    }
  }
  return references;
}
