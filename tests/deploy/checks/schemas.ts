/**
 * Validation of rendered objects against the Kubernetes OpenAPI schemas shipped in
 * kubernetes-models 4.5.1 (Kubernetes 1.27): types, required fields, formats. Note that these
 * validators do not reject unknown fields, which is why the invariant checks look for the fields
 * that matter by name.
 */
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { objectRef, type K8sObject } from '../kustomize/objects.js';

type Validatable = new (data: never) => { validate(): void };

const MODELS: Record<string, Validatable> = {
  'apps/v1 Deployment': Deployment,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1 Job': Job,
  'networking.k8s.io/v1 Ingress': Ingress,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 Namespace': Namespace,
  'v1 Secret': Secret,
  'v1 Service': Service,
  'v1 ServiceAccount': ServiceAccount,
};

/** One problem per object that fails its schema, or whose apiVersion and kind have no schema here. */
export function schemaProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    const Model = MODELS[`${object.apiVersion} ${object.kind}`];
    if (!Model) {
      problems.push(`${objectRef(object)}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(structuredClone(object) as never).validate();
    } catch (error) {
      problems.push(`${objectRef(object)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return problems;
}
