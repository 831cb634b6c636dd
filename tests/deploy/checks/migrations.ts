/**
 * Every service with migrations has a migration Job: the migration image, the service as its
 * argument, the same database Secret as the service's Deployment, a retry limit, a deadline and a
 * time-to-live (so the next release can create its own Job).
 */
import { serviceDatabaseVariable } from '@tix/protos';
import type { Deployable } from '../../../deploy/images/deployables.js';
import {
  containersOf,
  get,
  isObject,
  objectRef,
  podTemplate,
  text,
  type Json,
  type K8sObject,
} from '../kustomize/objects.js';

function secretRefOf(workload: K8sObject | undefined, variable: string): string | undefined {
  for (const container of containersOf(get(podTemplate(workload as K8sObject), 'spec'))) {
    const entry = ((container.env as Json[] | undefined) ?? []).find(
      (item) => get(item, 'name') === variable,
    );
    const ref = get(entry, 'valueFrom', 'secretKeyRef');
    if (isObject(ref)) return `${text(ref.name)}/${text(ref.key)}`;
  }
  return undefined;
}

/** The Jobs of a build that migrate `service` (migration image, service as the first argument). */
export function migrationJobsFor(objects: K8sObject[], service: string): K8sObject[] {
  return objects.filter(
    (object) =>
      object.kind === 'Job' &&
      containersOf(get(podTemplate(object), 'spec')).some(
        (container) =>
          /(^|[/-])migrate(:|@|$)/.test(text(container.image)) && get(container, 'args', 0) === service,
      ),
  );
}

/** Problems of the migration Jobs of a build for the given deployables. */
export function migrationProblems(objects: K8sObject[], deployables: Deployable[]): string[] {
  const problems: string[] = [];
  for (const deployable of deployables) {
    if (deployable.name === 'gateway' || !deployable.migrationsDir) continue;
    const jobs = migrationJobsFor(objects, deployable.name);
    if (jobs.length !== 1) {
      problems.push(
        `${deployable.name} has migrations (${deployable.migrationsDir}) but ${jobs.length} migration Jobs`,
      );
      continue;
    }
    const job = jobs[0]!;
    const ref = objectRef(job);
    const variable = serviceDatabaseVariable(deployable.name);
    const deployment = objects.find(
      (object) => object.kind === 'Deployment' && object.metadata.name === deployable.name,
    );
    const jobSecret = secretRefOf(job, variable);
    if (!jobSecret) problems.push(`${ref}: ${variable} does not come from a Secret`);
    else if (jobSecret !== secretRefOf(deployment, variable)) {
      problems.push(
        `${ref}: ${variable} comes from ${jobSecret}, not from the Secret the ${deployable.name} Deployment uses`,
      );
    }
    if (typeof get(job, 'spec', 'backoffLimit') !== 'number') problems.push(`${ref}: no backoffLimit`);
    if (typeof get(job, 'spec', 'activeDeadlineSeconds') !== 'number')
      problems.push(`${ref}: no activeDeadlineSeconds`);
    if (typeof get(job, 'spec', 'ttlSecondsAfterFinished') !== 'number')
      problems.push(`${ref}: no ttlSecondsAfterFinished`);
    if (!['Never', 'OnFailure'].includes(String(get(podTemplate(job), 'spec', 'restartPolicy')))) {
      problems.push(`${ref}: restartPolicy must be Never or OnFailure`);
    }
  }
  return problems;
}
