/**
 * The kustomize subset renderer (kustomize/): strategic merge, the ConfigMap hash (against
 * kustomize's own test vectors), and whole builds of small base + component + overlay trees.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configMapHash } from './kustomize/config-map-hash.js';
import { get, type Json, type K8sObject } from './kustomize/objects.js';
import { parseImage, renderKustomization } from './kustomize/render.js';
import { strategicMerge } from './kustomize/strategic-merge.js';

let root: string;

function writeTree(files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

function named(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found;
}

const BASE_DEPLOYMENT = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  labels: { app: api }
spec:
  selector:
    matchLabels: { app: api }
  template:
    metadata:
      labels: { app: api }
    spec:
      containers:
        - name: api
          image: tix-api
          envFrom:
            - configMapRef: { name: settings }
          env:
            - name: MODE
              valueFrom:
                configMapKeyRef: { name: settings, key: MODE }
            - name: KEEP
              value: kept
            - name: DROP
              value: dropped
          resources:
            requests: { cpu: 100m, memory: 64Mi }
        - name: sidecar
          image: busybox:1.36
      volumes:
        - name: settings
          configMap: { name: settings }
---
apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  selector: { app: api }
  ports:
    - { name: http, port: 80, targetPort: 8080 }
`;

describe('deploy: kustomize subset renderer', () => {
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tix-kustomize-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  describe('ConfigMap hash suffix', () => {
    it("matches kustomize's test vectors (api/hasher/hasher_test.go)", () => {
      expect(configMapHash({ name: '' })).to.equal('6ct58987ht');
      expect(configMapHash({ name: '', data: { one: '' } })).to.equal('9g67k2htb6');
      expect(configMapHash({ name: '', data: { two: 2, one: '', three: 3 } })).to.equal('7757f9kkct');
      expect(configMapHash({ name: '', binaryData: { one: '' } })).to.equal('6mtk2m274t');
      expect(configMapHash({ name: '', data: { one: '' }, binaryData: { two: '' } })).to.equal('698h7c7t9m');
    });

    it('changes with the name and with the data', () => {
      const base = configMapHash({ name: 'settings', data: { A: '1' } });
      expect(configMapHash({ name: 'other', data: { A: '1' } })).to.not.equal(base);
      expect(configMapHash({ name: 'settings', data: { A: '2' } })).to.not.equal(base);
    });
  });

  describe('strategic merge', () => {
    const target: Json = {
      spec: {
        replicas: 1,
        containers: [
          {
            name: 'a',
            image: 'a:1',
            env: [
              { name: 'X', value: '1' },
              { name: 'Y', value: '2' },
            ],
          },
          { name: 'b', image: 'b:1' },
        ],
        tolerations: [{ key: 'one' }],
      },
    };

    it('merges containers and env by name, appends new items, deletes with $patch and null', () => {
      const patch: Json = {
        spec: {
          replicas: null,
          containers: [
            {
              name: 'a',
              env: [
                { name: 'Y', value: 'two' },
                { name: 'Z', value: '3' },
                { name: 'X', $patch: 'delete' },
              ],
            },
            { name: 'c', image: 'c:1' },
          ],
        },
      };
      expect(strategicMerge(target, patch)).to.deep.equal({
        spec: {
          containers: [
            {
              name: 'a',
              image: 'a:1',
              env: [
                { name: 'Y', value: 'two' },
                { name: 'Z', value: '3' },
              ],
            },
            { name: 'b', image: 'b:1' },
            { name: 'c', image: 'c:1' },
          ],
          tolerations: [{ key: 'one' }],
        },
      });
    });

    it('replaces lists without a merge key, and maps marked $patch: replace', () => {
      const patch: Json = {
        spec: { tolerations: [{ key: 'two' }], containers: [{ name: 'b', $patch: 'delete' }] },
      };
      expect(get(strategicMerge(target, patch), 'spec', 'tolerations')).to.deep.equal([{ key: 'two' }]);
      expect(strategicMerge(target, { spec: { $patch: 'replace', replicas: 3 } })).to.deep.equal({
        spec: { replicas: 3 },
      });
    });

    it('does not modify its inputs', () => {
      const before = structuredClone(target);
      strategicMerge(target, { spec: { containers: [{ name: 'a', image: 'a:2' }] } });
      expect(target).to.deep.equal(before);
    });

    it('refuses directives it does not implement, and keyed items without their key', () => {
      expect(() => strategicMerge(target, { spec: { $setElementOrder: [] } })).to.throw(
        'unsupported strategic merge directive $setElementOrder',
      );
      expect(() => strategicMerge(target, { spec: { containers: [{ image: 'x' }] } })).to.throw(
        'merge key "name"',
      );
    });
  });

  it('parses image references', () => {
    expect(parseImage('tix-lookup')).to.deep.equal({ name: 'tix-lookup' });
    expect(parseImage('registry:5000/tix/lookup:1.2')).to.deep.equal({
      name: 'registry:5000/tix/lookup',
      tag: '1.2',
    });
    expect(parseImage('tix/lookup@sha256:abc')).to.deep.equal({ name: 'tix/lookup', digest: 'sha256:abc' });
  });

  describe('builds', () => {
    beforeEach(() => {
      writeTree({
        'base/kustomization.yaml': `
resources: [app.yaml]
labels:
  - pairs: { part-of: demo }
    includeTemplates: true
configMapGenerator:
  - name: settings
    envs: [settings.env]
    literals: [MODE=base]
`,
        'base/app.yaml': BASE_DEPLOYMENT,
        'base/settings.env': '# comment\nLEVEL=info\n\nMODE=overridden-by-literal\n',
        'component/kustomization.yaml': `
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources: [policy.yaml]
patches:
  - path: sidecar-off.yaml
`,
        'component/policy.yaml':
          'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: { name: deny }\nspec: { podSelector: {} }\n',
        'component/sidecar-off.yaml': `
apiVersion: apps/v1
kind: Deployment
metadata: { name: api }
spec:
  template:
    spec:
      containers:
        - { name: sidecar, $patch: delete }
`,
        'overlay/kustomization.yaml': `
namespace: prod
resources: [../base]
components: [../component]
labels:
  - pairs: { env: prod }
    includeTemplates: true
images:
  - { name: tix-api, newName: registry.example.com/api, newTag: '2.0' }
  - { name: busybox, digest: 'sha256:feed' }
configMapGenerator:
  - name: settings
    behavior: merge
    literals: [LEVEL=warn]
patches:
  - path: resources.yaml
`,
        'overlay/resources.yaml': `
apiVersion: apps/v1
kind: Deployment
metadata: { name: api }
spec:
  template:
    spec:
      containers:
        - name: api
          env:
            - { name: DROP, $patch: delete }
          resources:
            limits: { cpu: '1', memory: 128Mi }
`,
      });
    });

    it('applies resources, components, generators, patches, namespace, labels and images in order', () => {
      const objects = renderKustomization(path.join(root, 'overlay'));
      expect(
        objects.map(
          (object) =>
            `${object.kind}/${object.metadata.namespace}/${object.metadata.name.replace(/-\w{10}$/, '-<hash>')}`,
        ),
      ).to.deep.equal([
        'Deployment/prod/api',
        'Service/prod/api',
        'ConfigMap/prod/settings-<hash>',
        'NetworkPolicy/prod/deny',
      ]);
      const configMap = objects.find((object) => object.kind === 'ConfigMap')!;
      expect(configMap.data).to.deep.equal({ LEVEL: 'warn', MODE: 'base' });
      expect(configMap.metadata.name).to.equal(
        `settings-${configMapHash({ name: 'settings', data: { LEVEL: 'warn', MODE: 'base' } })}`,
      );

      const deployment = named(objects, 'Deployment', 'api');
      expect(deployment.metadata.labels).to.deep.equal({ app: 'api', 'part-of': 'demo', env: 'prod' });
      expect(get(deployment, 'spec', 'template', 'metadata', 'labels')).to.deep.equal({
        app: 'api',
        'part-of': 'demo',
        env: 'prod',
      });
      expect(get(deployment, 'spec', 'selector')).to.deep.equal({ matchLabels: { app: 'api' } });
      expect(get(named(objects, 'Service', 'api'), 'spec', 'selector')).to.deep.equal({ app: 'api' });

      const containers = get(deployment, 'spec', 'template', 'spec', 'containers') as Json[];
      expect(containers.map((container) => get(container, 'name'))).to.deep.equal(['api']);
      expect(get(containers[0], 'image')).to.equal('registry.example.com/api:2.0');
      expect(get(containers[0], 'env')).to.deep.equal([
        { name: 'MODE', valueFrom: { configMapKeyRef: { name: configMap.metadata.name, key: 'MODE' } } },
        { name: 'KEEP', value: 'kept' },
      ]);
      expect(get(containers[0], 'envFrom', 0, 'configMapRef', 'name')).to.equal(configMap.metadata.name);
      expect(get(deployment, 'spec', 'template', 'spec', 'volumes', 0, 'configMap', 'name')).to.equal(
        configMap.metadata.name,
      );
      expect(get(containers[0], 'resources')).to.deep.equal({
        requests: { cpu: '100m', memory: '64Mi' },
        limits: { cpu: '1', memory: '128Mi' },
      });
    });

    it('rewrites a digest rule on an image that had a tag', () => {
      writeTree({
        'plain/kustomization.yaml':
          'resources: [../base/app.yaml]\nimages:\n  - { name: busybox, digest: "sha256:feed" }\n',
      });
      const objects = renderKustomization(path.join(root, 'plain'));
      expect(
        get(named(objects, 'Deployment', 'api'), 'spec', 'template', 'spec', 'containers', 1, 'image'),
      ).to.equal('busybox@sha256:feed');
    });

    it('refuses fields it does not implement instead of ignoring them', () => {
      writeTree({ 'bad/kustomization.yaml': 'resources: [../base]\nnamePrefix: x-\n' });
      expect(() => renderKustomization(path.join(root, 'bad'))).to.throw(
        'fields not supported by this renderer: namePrefix',
      );
    });

    it('refuses labels on selectors, JSON 6902 patches, and patches that match nothing', () => {
      writeTree({
        'selectors/kustomization.yaml':
          'resources: [../base]\nlabels:\n  - pairs: { a: b }\n    includeSelectors: true\n',
        'json6902/kustomization.yaml':
          'resources: [../base]\npatches:\n  - target: { kind: Deployment, name: api }\n    patch: "- op: remove\\n  path: /spec/replicas"\n',
        'nothing/kustomization.yaml':
          'resources: [../base]\npatches:\n  - patch: "apiVersion: apps/v1\\nkind: Deployment\\nmetadata: { name: ghost }"\n',
      });
      expect(() => renderKustomization(path.join(root, 'selectors'))).to.throw(
        'includeSelectors are not supported',
      );
      expect(() => renderKustomization(path.join(root, 'json6902'))).to.throw(
        'JSON 6902 patches are not supported',
      );
      expect(() => renderKustomization(path.join(root, 'nothing'))).to.throw(
        'matches nothing (Deployment/ghost)',
      );
    });

    it('refuses an object defined twice, and a merge into a ConfigMap that was never generated', () => {
      writeTree({
        'twice/kustomization.yaml': 'resources: [../base, ../base/app.yaml]\n',
        'merge/kustomization.yaml':
          'resources: [../base/app.yaml]\nconfigMapGenerator:\n  - { name: settings, behavior: merge, literals: [A=1] }\n',
      });
      expect(() => renderKustomization(path.join(root, 'twice'))).to.throw('Deployment/api is defined twice');
      expect(() => renderKustomization(path.join(root, 'merge'))).to.throw('has nothing to merge');
    });

    it('refuses a component listed as a resource folder, and a kustomization listed as a component', () => {
      writeTree({
        'wrong-resource/kustomization.yaml': 'resources: [../component]\n',
        'wrong-component/kustomization.yaml': 'components: [../base]\n',
      });
      expect(() => renderKustomization(path.join(root, 'wrong-resource'))).to.throw(
        'expected a Kustomization, found a Component',
      );
      expect(() => renderKustomization(path.join(root, 'wrong-component'))).to.throw(
        'expected a Component, found a Kustomization',
      );
    });
  });
});
