/**
 * Every fleet-wide check can fail: secrets, the Ingress, the network policies, the migration Jobs and
 * the schemas, each broken once in a copy of the rendered production overlay.
 */
import { expect } from 'chai';
import { DEPLOYABLE_NAMES, listDeployables } from '../../deploy/images/deployables.js';
import { ingressProblems } from './checks/ingress.js';
import { migrationProblems } from './checks/migrations.js';
import { networkPolicyProblems } from './checks/network-policies.js';
import { schemaProblems } from './checks/schemas.js';
import { secretProblems } from './checks/secrets.js';
import { get, isObject, type Json, type JsonObject } from './kustomize/objects.js';
import {
  configMapNamed,
  deployment,
  findContainer,
  findObject,
  intendedConnections,
  processModels,
  productionWith,
  removeEnv,
  removeObject,
} from './support.js';

describe('deploy: every fleet-wide check reports what it guards', () => {
  describe('secrets', () => {
    it('a Secret object with data, a literal credential, and a password in a ConfigMap', () => {
      const objects = productionWith((all) => {
        all.push({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'tix-rabbitmq', namespace: 'tix' },
          stringData: { uri: 'amqp://tix:hunter2@rabbitmq' },
        });
        const container = findContainer(deployment(all, 'lookup'));
        removeEnv(container, 'AMQP_URL');
        (container.env as Json[]).push({ name: 'AMQP_URL', value: 'amqp://tix:hunter2@rabbitmq:5672' });
        (configMapNamed(all, 'tix-config').data as JsonObject).S3_ENDPOINT =
          'https://tix:hunter2@minio.example.com';
      });
      expect(secretProblems(objects)).to.have.members([
        'Secret/tix/tix-rabbitmq: a Secret in the repository; create it in the cluster and reference it instead',
        'Deployment/tix/lookup container lookup: AMQP_URL is a literal; take it from a secretKeyRef',
        `ConfigMap/tix/${configMapNamed(objects, 'tix-config').metadata.name}: S3_ENDPOINT holds a URL with a password`,
      ]);
    });
  });

  describe('ingress', () => {
    it('a host the gateway does not serve, and a session host left unrouted', async () => {
      const objects = productionWith((all) => {
        const rules = get(findObject(all, 'Ingress', 'gateway'), 'spec', 'rules') as JsonObject[];
        rules[1]!.host = 'www.tix.example.com';
        (get(findObject(all, 'Ingress', 'gateway'), 'spec', 'tls', 0) as JsonObject).hosts = [
          'api.tix.example.com',
          'www.tix.example.com',
        ];
      });
      expect(ingressProblems(objects, await processModels())).to.deep.equal([
        'Ingress/tix/gateway: the gateway serves www.tix.example.com in no role (API_HOSTS / APP_HOSTS)',
        'no Ingress host reaches the gateway in its app (session) role',
        'the gateway serves app.tix.example.com, but no Ingress rule routes it',
      ]);
    });

    it('a backend that is not the gateway', async () => {
      const objects = productionWith((all) => {
        const rules = get(findObject(all, 'Ingress', 'gateway'), 'spec', 'rules') as JsonObject[];
        (get(rules[0], 'http', 'paths', 0, 'backend', 'service') as JsonObject).name = 'lookup';
      });
      expect(ingressProblems(objects, await processModels())).to.deep.equal([
        'Ingress/tix/gateway: api.tix.example.com goes to Service lookup, which does not select the gateway',
        'no Ingress host reaches the gateway in its API role',
        'the gateway serves api.tix.example.com, but no Ingress rule routes it',
      ]);
    });
  });

  describe('network policies', () => {
    it('no default deny', () => {
      const objects = productionWith((all) => removeObject(all, 'NetworkPolicy', 'default-deny'));
      const problems = networkPolicyProblems(objects, intendedConnections());
      expect(problems[0]).to.equal(
        'namespace tix: no default-deny NetworkPolicy (podSelector {}, Ingress and Egress, no rules)',
      );
    });

    it('no policies at all (the component left out)', () => {
      const objects = productionWith((all) =>
        all.splice(0, all.length, ...all.filter((object) => object.kind !== 'NetworkPolicy')),
      );
      const problems = networkPolicyProblems(objects, intendedConnections());
      expect(problems).to.include('allowed but not intended: stranger -> lookup');
      expect(problems).to.include('allowed but not intended: webhooks -> tickets');
    });

    it('a call the fleet does not make (webhooks -> lookup) let through', () => {
      const objects = productionWith((all) => {
        const policy = findObject(all, 'NetworkPolicy', 'webhooks');
        (get(policy, 'spec', 'egress') as Json[]).push({
          to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'lookup' } } }],
          ports: [{ protocol: 'TCP', port: 50051 }],
        });
        const lookup = findObject(all, 'NetworkPolicy', 'lookup');
        (get(lookup, 'spec', 'ingress', 0, 'from') as Json[]).push({
          podSelector: { matchLabels: { 'app.kubernetes.io/name': 'webhooks' } },
        });
      });
      expect(networkPolicyProblems(objects, intendedConnections())).to.deep.equal([
        'allowed but not intended: webhooks -> lookup',
      ]);
    });

    it('a call the fleet makes (tickets -> lookup) blocked', () => {
      const objects = productionWith((all) => {
        const policy = findObject(all, 'NetworkPolicy', 'tickets');
        (policy.spec as JsonObject).egress = (get(policy, 'spec', 'egress') as Json[]).filter(
          (rule) => get(rule, 'to', 0, 'podSelector', 'matchLabels', 'app.kubernetes.io/name') !== 'lookup',
        );
      });
      expect(networkPolicyProblems(objects, intendedConnections())).to.deep.equal([
        'intended but blocked: tickets -> lookup',
      ]);
    });

    it('metrics ports open to every namespace, and Prometheus let onto the service ports', () => {
      const objects = productionWith((all) => {
        const policy = findObject(all, 'NetworkPolicy', 'allow-prometheus');
        const rule = get(policy, 'spec', 'ingress', 0) as JsonObject;
        rule.from = [{ namespaceSelector: {} }];
        delete rule.ports;
      });
      const problems = networkPolicyProblems(objects, intendedConnections());
      expect(problems).to.include('allowed but not intended: stranger -> lookup:metrics');
      expect(problems).to.include('allowed but not intended: ingress-controller -> webhooks:metrics');
      expect(problems).to.include('allowed but not intended: prometheus -> tickets');
      expect(problems).to.include('allowed but not intended: prometheus -> gateway');
    });

    it('no way for Prometheus to scrape (the metrics policy left out)', () => {
      const objects = productionWith((all) => removeObject(all, 'NetworkPolicy', 'allow-prometheus'));
      expect(networkPolicyProblems(objects, intendedConnections())).to.deep.equal(
        [...DEPLOYABLE_NAMES].sort().map((name) => `intended but blocked: prometheus -> ${name}:metrics`),
      );
    });

    it('webhook deliveries allowed into private ranges', () => {
      const objects = productionWith((all) => {
        const policy = findObject(all, 'NetworkPolicy', 'webhooks');
        const rule = (get(policy, 'spec', 'egress') as JsonObject[]).find((entry) =>
          isObject(get(entry, 'to', 0, 'ipBlock')),
        )!;
        (get(rule, 'to', 0, 'ipBlock') as JsonObject).except = [];
      });
      // MinIO listens on 443 at a private address: exactly what a malicious webhook URL would aim at.
      expect(networkPolicyProblems(objects, intendedConnections())).to.deep.equal([
        'allowed but not intended: webhooks -> minio',
      ]);
    });
  });

  describe('migrations', () => {
    it('a service with migrations and no Job, and a Job on another Secret', () => {
      const objects = productionWith((all) => {
        removeObject(all, 'Job', 'lookup-migrate');
        const container = findContainer(findObject(all, 'Job', 'tickets-migrate'), 'migrate');
        (get(container, 'env', 0, 'valueFrom', 'secretKeyRef') as JsonObject).name = 'tix-admin-database';
      });
      expect(migrationProblems(objects, listDeployables())).to.deep.equal([
        'lookup has migrations (services/lookup/prisma/migrations) but 0 migration Jobs',
        'Job/tix/tickets-migrate: TICKETS_DATABASE_URL comes from tix-admin-database/uri, not from the Secret the tickets Deployment uses',
      ]);
    });
  });

  describe('schemas', () => {
    it('a port given as a string and a Deployment without a selector', () => {
      const objects = productionWith((all) => {
        (get(findContainer(deployment(all, 'lookup')), 'ports', 0) as JsonObject).containerPort = '50051';
        delete (deployment(all, 'tickets').spec as JsonObject).selector;
      });
      expect(schemaProblems(objects)).to.deep.equal([
        'Deployment/tix/lookup: data/spec/template/spec/containers/0/ports/0/containerPort must be integer',
        'Deployment/tix/tickets: data/spec must have required property selector',
      ]);
    });

    it('a kind it has no schema for', () => {
      const objects = productionWith((all) =>
        all.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray' } }),
      );
      expect(schemaProblems(objects)).to.deep.equal(['Pod/stray: no schema for v1 Pod']);
    });
  });
});
