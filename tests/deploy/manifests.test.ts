/**
 * The Kubernetes manifests as each overlay renders them: valid against the Kubernetes schemas, and
 * holding every invariant a platform team relies on (checks/). Each check returns its problems;
 * an empty list is the pass. The *-invariants-can-fail tests prove each check reports what it guards.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { serviceDatabaseVariable, type ServiceName } from '@tix/protos';
import { listDeployables, REPO_ROOT } from '../../deploy/images/deployables.js';
import { configurationProblems, deploymentEnvironment, sharedStateProblems } from './checks/configuration.js';
import { ingressProblems } from './checks/ingress.js';
import { migrationProblems } from './checks/migrations.js';
import { networkPolicyProblems } from './checks/network-policies.js';
import { requiredVariables } from './checks/processes.js';
import { schemaProblems } from './checks/schemas.js';
import { referencedSecretKeys, secretProblems } from './checks/secrets.js';
import { imageProblems, probeProblems, workloadProblems } from './checks/workloads.js';
import { readObjects } from './kustomize/objects.js';
import {
  callsReadFromConfig,
  findObject,
  INTENDED_CALLS,
  intendedConnections,
  K8S_DIR,
  OVERLAYS,
  processModels,
  renderOverlay,
} from './support.js';

const DEPLOYABLE_NAMES = listDeployables().map((deployable) => deployable.name);

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return yamlFilesUnder(full);
    return /\.ya?ml$/.test(entry) ? [full] : [];
  });
}

describe('deploy: Kubernetes manifests', () => {
  for (const overlay of OVERLAYS) {
    describe(`overlay ${overlay}`, () => {
      it('renders one Deployment, Service, ServiceAccount, HPA and PDB per deployable, and the Ingress', () => {
        const objects = renderOverlay(overlay);
        for (const kind of [
          'Deployment',
          'Service',
          'ServiceAccount',
          'HorizontalPodAutoscaler',
          'PodDisruptionBudget',
        ]) {
          const names = objects
            .filter((object) => object.kind === kind)
            .map((object) => object.metadata.name);
          expect(names.filter((name) => name !== 'tix-migrate').sort(), kind).to.deep.equal(
            [...DEPLOYABLE_NAMES].sort(),
          );
        }
        expect(objects.filter((object) => object.kind === 'Ingress')).to.have.length(1);
        const namespaces = new Set(
          objects.filter((object) => object.kind !== 'Namespace').map((object) => object.metadata.namespace),
        );
        expect([...namespaces]).to.deep.equal([overlay === 'production' ? 'tix' : 'tix-dev']);
      });

      it('validates every object against the Kubernetes 1.27 schemas (kubernetes-models)', () => {
        expect(schemaProblems(renderOverlay(overlay))).to.deep.equal([]);
      });

      it('gives every Deployment readiness and liveness probes', () => {
        expect(probeProblems(renderOverlay(overlay))).to.deep.equal([]);
      });

      it('locks down every pod, and pairs each Deployment with its Service, HPA, PDB and ServiceAccount', () => {
        expect(workloadProblems(renderOverlay(overlay))).to.deep.equal([]);
      });

      it('pins every image to a registry and a tag', () => {
        expect(imageProblems(renderOverlay(overlay))).to.deep.equal([]);
      });

      it('gives each process an environment its own config accepts, ports that match it, and enough time to drain', async () => {
        expect(configurationProblems(renderOverlay(overlay), await processModels())).to.deep.equal([]);
      });

      it('gives a gateway that may scale out a shared Redis', async () => {
        expect(sharedStateProblems(renderOverlay(overlay), await processModels())).to.deep.equal([]);
      });

      it('takes every credential from a Secret reference and defines no Secret', () => {
        expect(secretProblems(renderOverlay(overlay))).to.deep.equal([]);
      });

      it('routes the API host and the session host to the gateway, in the roles the gateway gives them', async () => {
        expect(ingressProblems(renderOverlay(overlay), await processModels())).to.deep.equal([]);
      });

      it("has a migration Job for every service with migrations, on that service's database Secret", () => {
        expect(migrationProblems(renderOverlay(overlay), listDeployables())).to.deep.equal([]);
      });
    });
  }

  it('production: network policies allow exactly the connections the fleet makes', () => {
    expect(networkPolicyProblems(renderOverlay('production'), intendedConnections())).to.deep.equal([]);
  });

  it('development: no network policies (the component is opt-in)', () => {
    expect(renderOverlay('development').filter((object) => object.kind === 'NetworkPolicy')).to.deep.equal(
      [],
    );
  });

  it('production runs in production mode, development in development mode', () => {
    for (const [overlay, mode] of [
      ['production', 'production'],
      ['development', 'development'],
    ] as const) {
      const objects = renderOverlay(overlay);
      for (const name of DEPLOYABLE_NAMES) {
        const environment = deploymentEnvironment(objects, findObject(objects, 'Deployment', name));
        expect(environment.values.NODE_ENV, `${overlay} ${name}`).to.equal(mode);
      }
    }
  });

  it('sizes production above development (replicas and requests)', () => {
    const production = renderOverlay('production');
    const development = renderOverlay('development');
    for (const name of DEPLOYABLE_NAMES) {
      const productionHpa = findObject(production, 'HorizontalPodAutoscaler', name);
      const developmentHpa = findObject(development, 'HorizontalPodAutoscaler', name);
      expect((productionHpa.spec as { minReplicas: number }).minReplicas, name).to.be.at.least(2);
      expect((developmentHpa.spec as { maxReplicas: number }).maxReplicas, name).to.be.below(
        (productionHpa.spec as { maxReplicas: number }).maxReplicas,
      );
    }
  });

  it("derives each built process's required variables from its config, and the manifests provide them", async () => {
    const models = await processModels();
    const objects = renderOverlay('production');
    const required: Record<string, string[]> = {};
    for (const [name, model] of models) {
      if (!model.loadConfig) continue;
      const environment = deploymentEnvironment(objects, findObject(objects, 'Deployment', name));
      required[name] = requiredVariables(model, environment.values);
      for (const variable of required[name])
        expect(environment.sources[variable], `${name} ${variable}`).to.be.a('string');
    }
    // What the derivation finds for the two processes that exist since the start (a sanity check that
    // it sees through defaults: each of these falls back to 127.0.0.1 or is refused in production).
    expect(required.lookup).to.include.members(['AMQP_URL', 'GRPC_HOST', serviceDatabaseVariable('lookup')]);
    expect(required.gateway).to.include.members([
      'CORS_ORIGINS',
      'API_HOSTS',
      'APP_HOSTS',
      'GATEWAY_HOST',
      'LOOKUP_SERVICE_ADDR',
    ]);
  });

  it("matches the policies' call map with the peers each built service's config reads an address for", async () => {
    for (const [name, model] of await processModels()) {
      if (!model.loadConfig) continue;
      expect(callsReadFromConfig(model), name).to.have.members(INTENDED_CALLS[name]);
    }
  });

  it('keeps every Secret name and key the manifests reference documented in docs/deployment.md', () => {
    const docs = readFileSync(path.join(REPO_ROOT, 'docs/deployment.md'), 'utf8').split('\n');
    for (const overlay of OVERLAYS) {
      for (const [secret, keys] of referencedSecretKeys(renderOverlay(overlay))) {
        for (const key of keys) {
          const documented = docs.some(
            (line) => line.includes(`\`${secret}\``) && line.includes(`\`${key}\``),
          );
          expect(documented, `${secret}/${key} in docs/deployment.md`).to.equal(true);
        }
      }
    }
  });

  it('has no Secret object in any YAML file under k8s/', () => {
    const secrets = yamlFilesUnder(K8S_DIR)
      .filter((file) => !/kustomization\.ya?ml$/.test(file))
      .flatMap((file) =>
        readObjects(file)
          .filter((object) => object.kind === 'Secret')
          .map(() => path.relative(REPO_ROOT, file)),
      );
    expect(secrets).to.deep.equal([]);
  });

  it('names the database variable of each service after the fleet map', () => {
    const objects = renderOverlay('production');
    for (const deployable of listDeployables().filter((item) => item.name !== 'gateway')) {
      const environment = deploymentEnvironment(objects, findObject(objects, 'Deployment', deployable.name));
      expect(
        environment.sources[serviceDatabaseVariable(deployable.name as ServiceName)],
        deployable.name,
      ).to.match(/^Secret /);
    }
  });
});
