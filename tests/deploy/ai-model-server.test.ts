/**
 * The assistant reaches nothing outside the fleet unless the operator adds the optional component
 * k8s/components/ai-model-server to an overlay: then its pods reach that one model server, with
 * provider settings the ai service accepts, and no other connection changes.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configurationProblems, deploymentEnvironment } from './checks/configuration.js';
import { allowedConnections, networkPolicyProblems } from './checks/network-policies.js';
import { get, type K8sObject } from './kustomize/objects.js';
import { renderKustomization } from './kustomize/render.js';
import {
  deployment,
  findContainer,
  intendedConnections,
  K8S_DIR,
  processModels,
  renderOverlay,
} from './support.js';

/** The production overlay with the component added on top, as an operator's overlay would. */
function productionWithModelServer(): K8sObject[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'tix-ai-model-server-'));
  try {
    const kustomization = {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace: 'tix',
      resources: [path.join(K8S_DIR, 'overlays/production')],
      components: [path.join(K8S_DIR, 'components/ai-model-server')],
    };
    // JSON is YAML.
    writeFileSync(path.join(dir, 'kustomization.yaml'), JSON.stringify(kustomization));
    return renderKustomization(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('deploy: the assistant and a model server', () => {
  it('by default: the retrieval provider, an optional key Secret, and no pod reaches a model server', () => {
    const objects = renderOverlay('production');
    const ai = deployment(objects, 'ai');
    const environment = deploymentEnvironment(objects, ai);
    expect(environment.values.AI_PROVIDER).to.equal('retrieval');
    expect(environment.values).not.to.have.any.keys('AI_OPENAI_BASE_URL', 'AI_OPENAI_MODEL');
    const key = (findContainer(ai).env as { name: string }[]).find(
      (variable) => variable.name === 'AI_OPENAI_API_KEY',
    );
    expect(get(key, 'valueFrom', 'secretKeyRef')).to.deep.equal({
      name: 'tix-ai-provider',
      key: 'api-key',
      optional: true,
    });
    const reaching = [...allowedConnections(objects)].filter((connection) =>
      /-> (model-server|internet)$/.test(connection),
    );
    expect(reaching).to.deep.equal(['webhooks -> internet']);
  });

  it('with the component: exactly one more connection, ai -> the model server', () => {
    expect(
      networkPolicyProblems(
        productionWithModelServer(),
        new Set([...intendedConnections(), 'ai -> model-server']),
      ),
    ).to.deep.equal([]);
  });

  it('with the component: the openai provider at the model server, settings the ai service accepts', async () => {
    const objects = productionWithModelServer();
    const environment = deploymentEnvironment(objects, deployment(objects, 'ai'));
    expect(environment.values).to.include({
      AI_PROVIDER: 'openai',
      AI_OPENAI_BASE_URL: 'http://ollama.ai-models.svc.cluster.local:11434/v1',
    });
    expect(configurationProblems(objects, await processModels())).to.deep.equal([]);
  });
});
