/**
 * The manifests say what the fleet map says (checks/fleet-map.ts): the real overlays hold to it,
 * and each check names a port or queue changed in a copy.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FLEET, SERVICE_NAMES } from '@tix/protos';
import { fleetPortProblems, metricsPolicyProblems, queueMentionProblems } from './checks/fleet-map.js';
import { get, type JsonObject } from './kustomize/objects.js';
import {
  deployment,
  findContainer,
  findObject,
  K8S_DIR,
  OVERLAYS,
  productionWith,
  renderOverlay,
} from './support.js';

const baseManifests = () =>
  SERVICE_NAMES.map((service) => ({
    service,
    file: `k8s/base/${service}.yaml`,
    yaml: readFileSync(path.join(K8S_DIR, 'base', `${service}.yaml`), 'utf8'),
  }));

describe('deploy: the manifests hold to the fleet map', () => {
  for (const overlay of OVERLAYS) {
    it(`overlay ${overlay}: every process's ports, port variables, probes and scrape annotation are FLEET's`, () => {
      expect(fleetPortProblems(renderOverlay(overlay))).to.deep.equal([]);
    });
  }

  it("the Prometheus policy opens exactly the fleet's metrics ports, to every process", () => {
    expect(metricsPolicyProblems(renderOverlay('production'))).to.deep.equal([]);
  });

  it('a queue a service manifest names is one the service consumes', () => {
    const manifests = baseManifests();
    expect(manifests.some(({ yaml }) => /\bqueue /.test(yaml))).to.equal(true);
    expect(queueMentionProblems(manifests)).to.deep.equal([]);
  });

  describe('each check names what it guards', () => {
    it("a gRPC port, a metrics port and an annotation that are not the fleet map's", () => {
      const objects = productionWith((all) => {
        const tickets = findContainer(deployment(all, 'tickets'));
        (tickets.ports as JsonObject[]).find((port) => port.name === 'grpc')!.containerPort = 50099;
        const annotations = get(
          findObject(all, 'Deployment', 'ai'),
          'spec',
          'template',
          'metadata',
          'annotations',
        ) as JsonObject;
        annotations['prometheus.io/port'] = '9499';
        const gateway = findContainer(deployment(all, 'gateway'));
        (gateway.env as JsonObject[]).find((variable) => variable.name === 'METRICS_PORT')!.value = '9410';
      });
      expect(fleetPortProblems(objects)).to.have.members([
        `Deployment/tix/gateway: METRICS_PORT is 9410, not the fleet map's 9400`,
        `Deployment/tix/tickets: containerPort grpc is 50099, not the fleet map's ${FLEET.tickets.grpcPort}`,
        `Deployment/tix/ai: annotation prometheus.io/port is 9499, not the fleet map's ${FLEET.ai.metricsPort}`,
      ]);
    });

    it('a Prometheus policy narrower than the metrics ports', () => {
      const objects = productionWith((all) => {
        const policy = findObject(all, 'NetworkPolicy', 'allow-prometheus');
        (get(policy, 'spec', 'ingress', 0, 'ports') as JsonObject[])[0]!.endPort = 9405;
      });
      expect(metricsPolicyProblems(objects)).to.deep.equal([
        "NetworkPolicy/tix/allow-prometheus: opens 9400-9405, not the fleet's metrics ports 9400-9410",
      ]);
    });

    it('a manifest naming a queue its service does not consume', () => {
      expect(
        queueMentionProblems([
          { service: 'ai', file: 'k8s/base/ai.yaml', yaml: '# Consumes (queue activity.events)' },
        ]),
      ).to.deep.equal([
        'k8s/base/ai.yaml: names queue activity.events, which ai does not consume in the fleet map',
      ]);
    });
  });
});
