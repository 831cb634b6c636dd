/**
 * Every workload check can fail: each test removes or breaks one thing (a probe, a limit, a required
 * variable, a port, ...) in a copy of the rendered production overlay and asserts that the check
 * guarding it names the problem. (The same checks find nothing on the real overlays:
 * manifests.test.ts.) fleet-invariants-can-fail.test.ts does the same for the fleet-wide checks.
 */
import { expect } from 'chai';
import { configurationProblems, sharedStateProblems } from './checks/configuration.js';
import { imageProblems, probeProblems, workloadProblems } from './checks/workloads.js';
import { get, type JsonObject } from './kustomize/objects.js';
import {
  configMapNamed,
  deployment,
  findContainer,
  findObject,
  podSpec,
  processModels,
  productionWith,
  removeEnv,
  removeObject,
} from './support.js';

describe('deploy: every workload check reports what it guards', () => {
  describe('probes', () => {
    it('a missing readiness probe', () => {
      const objects = productionWith((all) => delete findContainer(deployment(all, 'lookup')).readinessProbe);
      expect(probeProblems(objects)).to.deep.equal([
        'Deployment/tix/lookup container lookup: no readinessProbe',
      ]);
    });

    it('a missing liveness probe', () => {
      const objects = productionWith((all) => delete findContainer(deployment(all, 'gateway')).livenessProbe);
      expect(probeProblems(objects)).to.deep.equal([
        'Deployment/tix/gateway container gateway: no livenessProbe',
      ]);
    });

    it('a probe on a port the process does not listen on', async () => {
      const objects = productionWith((all) => {
        (findContainer(deployment(all, 'tickets')).readinessProbe as JsonObject).grpc = { port: 50051 };
      });
      expect(configurationProblems(objects, await processModels())).to.deep.equal([
        'Deployment/tix/tickets: readinessProbe checks port 50051, not one tickets serves on (50052)',
      ]);
    });

    it('a probe on the metrics port (it answers while the service is broken)', async () => {
      const objects = productionWith((all) => {
        (findContainer(deployment(all, 'tickets')).livenessProbe as JsonObject).grpc = { port: 9402 };
      });
      expect(configurationProblems(objects, await processModels())).to.deep.equal([
        'Deployment/tix/tickets: livenessProbe checks port 9402, not one tickets serves on (50052)',
      ]);
    });
  });

  describe('metrics', () => {
    it('the metrics containerPort removed, and METRICS_HOST left to its loopback default', async () => {
      const objects = productionWith((all) => {
        const webhooks = findContainer(deployment(all, 'webhooks'));
        webhooks.ports = (webhooks.ports as JsonObject[]).filter((port) => port.name !== 'metrics');
        removeEnv(findContainer(deployment(all, 'gateway')), 'METRICS_HOST');
      });
      const problems = configurationProblems(objects, await processModels());
      expect(problems).to.have.length(2);
      expect(problems[0]).to.match(
        /^Deployment\/tix\/gateway: metricsHost = 127\.0\.0\.1 is a loopback address in a pod; set the variable behind it/,
      );
      expect(problems[1]).to.equal(
        'Deployment/tix/webhooks: webhooks listens on 9405, which is not a containerPort',
      );
    });
  });

  describe('resources and security', () => {
    it('a missing memory limit and a missing cpu request', () => {
      const objects = productionWith((all) => {
        const resources = findContainer(deployment(all, 'tickets')).resources as {
          limits: JsonObject;
          requests: JsonObject;
        };
        delete resources.limits.memory;
        delete resources.requests.cpu;
      });
      expect(workloadProblems(objects)).to.deep.equal([
        'Deployment/tix/tickets container tickets: no cpu in resources.requests',
        'Deployment/tix/tickets container tickets: no memory in resources.limits',
      ]);
    });

    it('a writable root filesystem, privilege escalation, kept capabilities, no seccomp, root allowed', () => {
      const objects = productionWith((all) => {
        const workload = deployment(all, 'webhooks');
        const context = findContainer(workload).securityContext as JsonObject;
        context.readOnlyRootFilesystem = false;
        context.allowPrivilegeEscalation = true;
        context.capabilities = { drop: [] };
        delete context.runAsNonRoot;
        const podContext = podSpec(workload).securityContext as JsonObject;
        delete podContext.seccompProfile;
        delete podContext.runAsNonRoot;
      });
      expect(workloadProblems(objects)).to.deep.equal([
        'Deployment/tix/webhooks container webhooks: runAsNonRoot is not true',
        'Deployment/tix/webhooks container webhooks: readOnlyRootFilesystem is not true',
        'Deployment/tix/webhooks container webhooks: allowPrivilegeEscalation is not false',
        'Deployment/tix/webhooks container webhooks: capabilities do not drop ALL',
        'Deployment/tix/webhooks container webhooks: seccompProfile is not RuntimeDefault',
      ]);
    });

    it('a mounted service account token, on a Deployment and on a migration Job', () => {
      const objects = productionWith((all) => {
        podSpec(deployment(all, 'lookup')).automountServiceAccountToken = true;
        delete podSpec(findObject(all, 'Job', 'lookup-migrate')).automountServiceAccountToken;
      });
      expect(workloadProblems(objects)).to.have.members([
        'Job/tix/lookup-migrate: automountServiceAccountToken is not false (no Tix process talks to the Kubernetes API)',
        'Deployment/tix/lookup: automountServiceAccountToken is not false (no Tix process talks to the Kubernetes API)',
      ]);
    });
  });

  describe('Service, autoscaler, disruption budget', () => {
    it('a Service whose selector no longer selects the pods', () => {
      const objects = productionWith((all) => {
        (findObject(all, 'Service', 'comments').spec as JsonObject).selector = {
          'app.kubernetes.io/name': 'coments',
        };
      });
      expect(workloadProblems(objects)).to.deep.equal([
        'Deployment/tix/comments: no Service selects its pods',
      ]);
    });

    it('a Service port aimed at a container port that does not exist', () => {
      const objects = productionWith((all) => {
        (get(findObject(all, 'Service', 'lookup'), 'spec', 'ports', 0) as JsonObject).targetPort = 'http';
      });
      expect(workloadProblems(objects)).to.deep.equal([
        'Service/tix/lookup: port grpc targets http, which no container of Deployment/tix/lookup exposes',
      ]);
    });

    it('a missing HorizontalPodAutoscaler and a missing PodDisruptionBudget', () => {
      const objects = productionWith((all) => {
        removeObject(all, 'HorizontalPodAutoscaler', 'attachments');
        removeObject(all, 'PodDisruptionBudget', 'webhooks');
      });
      expect(workloadProblems(objects)).to.deep.equal([
        'Deployment/tix/attachments: expected one HorizontalPodAutoscaler, found 0',
        'Deployment/tix/webhooks: expected one PodDisruptionBudget selecting its pods, found 0',
      ]);
    });

    it('a fixed replica count next to an autoscaler', () => {
      const objects = productionWith((all) => {
        (deployment(all, 'gateway').spec as JsonObject).replicas = 3;
      });
      expect(workloadProblems(objects)).to.deep.equal([
        'Deployment/tix/gateway: sets spec.replicas although an autoscaler owns the count',
      ]);
    });

    it('an image left on its logical name, or on latest', () => {
      const objects = productionWith((all) => {
        findContainer(deployment(all, 'lookup')).image = 'tix-lookup';
        findContainer(findObject(all, 'Job', 'tickets-migrate'), 'migrate').image =
          'registry.example.com/tix/migrate:latest';
      });
      expect(imageProblems(objects)).to.deep.equal([
        'Deployment/tix/lookup container lookup: image tix-lookup is not a registry image with a fixed tag',
        'Job/tix/tickets-migrate container migrate: image registry.example.com/tix/migrate:latest is not a registry image with a fixed tag',
      ]);
    });
  });

  describe('configuration the processes require', () => {
    it("a service's database variable removed: its config falls back to loopback", async () => {
      const objects = productionWith((all) =>
        removeEnv(findContainer(deployment(all, 'lookup')), 'LOOKUP_DATABASE_URL'),
      );
      const problems = configurationProblems(objects, await processModels());
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(
        /^Deployment\/tix\/lookup: databaseUrl = postgresql:\/\/postgres:postgres@127\.0\.0\.1:5432\/tix_lookup is a loopback address in a pod; set the variable behind it \(unset: .*LOOKUP_DATABASE_URL/,
      );
    });

    it('GRPC_HOST removed: the service would listen on 127.0.0.1 only', async () => {
      const objects = productionWith((all) =>
        removeEnv(findContainer(deployment(all, 'tickets')), 'GRPC_HOST'),
      );
      const problems = configurationProblems(objects, await processModels());
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(
        /^Deployment\/tix\/tickets: grpcHost = 127\.0\.0\.1 is a loopback address in a pod/,
      );
    });

    it('CORS_ORIGINS removed from the gateway ConfigMap: production refuses to start', async () => {
      const objects = productionWith(
        (all) => delete (configMapNamed(all, 'tix-gateway-config').data as JsonObject).CORS_ORIGINS,
      );
      expect(configurationProblems(objects, await processModels())).to.deep.equal([
        'Deployment/tix/gateway: gateway refuses its environment: Invalid configuration:; CORS_ORIGINS: required in production ("*" or a comma list of origins)',
      ]);
    });

    it('a peer address removed from the shared ConfigMap: the callers fall back to loopback', async () => {
      const objects = productionWith(
        (all) => delete (configMapNamed(all, 'tix-config').data as JsonObject).LOOKUP_SERVICE_ADDR,
      );
      const problems = configurationProblems(objects, await processModels());
      expect(problems.map((problem) => problem.split(' = ')[0])).to.deep.equal([
        'Deployment/tix/gateway: serviceAddresses.lookup',
        'Deployment/tix/tickets: peers.lookup',
        'Deployment/tix/activity: peers.lookup',
        'Deployment/tix/ai: peers.lookup',
        'Deployment/tix/mail: peers.lookup',
        'Deployment/tix/sla: peers.lookup',
      ]);
    });

    it('a ConfigMap the Deployment names is missing', async () => {
      const objects = productionWith((all) =>
        removeObject(all, 'ConfigMap', configMapNamed(all, 'tix-gateway-config').metadata.name),
      );
      const problems = configurationProblems(objects, await processModels());
      expect(problems[0]).to.match(
        /^Deployment\/tix\/gateway: envFrom names ConfigMap tix-gateway-config-\w+, which is not in the build$/,
      );
    });

    it('a container port that is not the port the config listens on', async () => {
      const objects = productionWith((all) => {
        (get(findContainer(deployment(all, 'lookup')), 'ports', 0) as JsonObject).containerPort = 50059;
      });
      const problems = configurationProblems(objects, await processModels());
      expect(problems).to.include(
        'Deployment/tix/lookup: lookup listens on 50051, which is not a containerPort',
      );
    });

    it('a service not built yet on a port other than its fleet port', async () => {
      // Every service is built now: stand webhooks in for one whose config module does not exist.
      const models = new Map(await processModels());
      models.set('webhooks', { ...models.get('webhooks')!, loadConfig: undefined, variables: [] });
      const objects = productionWith((all) => {
        const container = findContainer(deployment(all, 'webhooks'));
        (container.env as JsonObject[]).find((entry) => entry.name === 'GRPC_PORT')!.value = '50099';
      });
      expect(configurationProblems(objects, models)).to.deep.equal([
        'Deployment/tix/webhooks: GRPC_PORT 50099 is not the fleet port 50055 of webhooks',
      ]);
    });

    it('a termination grace period shorter than preStop + SHUTDOWN_GRACE_MS', async () => {
      const objects = productionWith((all) => {
        podSpec(deployment(all, 'gateway')).terminationGracePeriodSeconds = 20;
      });
      expect(configurationProblems(objects, await processModels())).to.deep.equal([
        'Deployment/tix/gateway: terminationGracePeriodSeconds 20 does not cover preStop 5000 ms + SHUTDOWN_GRACE_MS 15000 ms',
      ]);
    });

    it('a scaling gateway without Redis', async () => {
      const objects = productionWith((all) =>
        removeEnv(findContainer(deployment(all, 'gateway')), 'REDIS_URL'),
      );
      expect(sharedStateProblems(objects, await processModels())).to.deep.equal([
        'Deployment/tix/gateway: up to 12 replicas but no REDIS_URL, so replicas would not share sessions',
      ]);
    });
  });
});
