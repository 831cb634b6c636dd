/**
 * The NetworkPolicy evaluator behind the production check follows the Kubernetes semantics it
 * relies on: isolation only for selected pods, same-namespace podSelector, namespaceSelector and
 * podSelector in one entry meaning AND, separate entries meaning OR, ports with protocol and
 * endPort, ipBlock with except, and default policyTypes.
 */
import { expect } from 'chai';
import { connectionAllowed, inCidr, type Endpoint } from './checks/network-policies.js';
import type { K8sObject } from './kustomize/objects.js';

function endpoint(
  name: string,
  namespace: string | undefined,
  labels: Record<string, string>,
  ip = '10.1.0.1',
): Endpoint {
  return { name, namespace, labels, ip, ports: [] };
}

function policy(namespace: string, spec: object): K8sObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'p', namespace },
    spec,
  } as unknown as K8sObject;
}

const api = endpoint('api', 'tix', { app: 'api' }, '10.1.0.2');
const web = endpoint('web', 'tix', { app: 'web' }, '10.1.0.3');
const otherWeb = endpoint('other-web', 'other', { app: 'web' }, '10.1.0.4');
const internet = endpoint('internet', undefined, {}, '198.51.100.7');

describe('deploy: NetworkPolicy evaluator', () => {
  it('allows everything when no policy selects either side', () => {
    expect(connectionAllowed([], web, api, 80)).to.equal(true);
  });

  it('isolates a pod selected for Ingress; podSelector admits the same namespace only', () => {
    const policies = [
      policy('tix', {
        podSelector: { matchLabels: { app: 'api' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }],
      }),
    ];
    expect(connectionAllowed(policies, web, api, 80)).to.equal(true);
    expect(connectionAllowed(policies, otherWeb, api, 80)).to.equal(false);
    expect(connectionAllowed(policies, api, web, 80)).to.equal(true);
  });

  it('reads namespaceSelector + podSelector in one entry as AND, in two entries as OR', () => {
    const and = [
      policy('tix', {
        podSelector: { matchLabels: { app: 'api' } },
        ingress: [
          {
            from: [
              {
                namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'other' } },
                podSelector: { matchLabels: { app: 'api' } },
              },
            ],
          },
        ],
      }),
    ];
    expect(connectionAllowed(and, otherWeb, api, 80)).to.equal(false);
    const or = [
      policy('tix', {
        podSelector: { matchLabels: { app: 'api' } },
        ingress: [
          {
            from: [
              { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'other' } } },
              { podSelector: { matchLabels: { app: 'nobody' } } },
            ],
          },
        ],
      }),
    ];
    expect(connectionAllowed(or, otherWeb, api, 80)).to.equal(true);
  });

  it('matches ports by protocol and range, and egress as well as ingress', () => {
    const policies = [
      policy('tix', {
        podSelector: { matchLabels: { app: 'web' } },
        policyTypes: ['Egress'],
        egress: [
          {
            ports: [
              { protocol: 'TCP', port: 8000, endPort: 8100 },
              { protocol: 'UDP', port: 53 },
            ],
          },
        ],
      }),
    ];
    expect(connectionAllowed(policies, web, api, 8080)).to.equal(true);
    expect(connectionAllowed(policies, web, api, 8200)).to.equal(false);
    expect(connectionAllowed(policies, web, { ...api, protocol: 'UDP' }, 53)).to.equal(true);
    expect(connectionAllowed(policies, web, api, 53)).to.equal(false);
  });

  it('treats a policy with egress rules and no policyTypes as Ingress and Egress', () => {
    const policies = [policy('tix', { podSelector: {}, egress: [] })];
    expect(connectionAllowed(policies, web, api, 80)).to.equal(false);
  });

  it('applies ipBlock with its exceptions, and never matches an outside address by selectors', () => {
    const policies = [
      policy('tix', {
        podSelector: { matchLabels: { app: 'web' } },
        policyTypes: ['Egress'],
        egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }] }],
      }),
    ];
    expect(connectionAllowed(policies, web, internet, 443)).to.equal(true);
    expect(connectionAllowed(policies, web, api, 443)).to.equal(false);
    const bySelector = [
      policy('tix', {
        podSelector: { matchLabels: { app: 'web' } },
        policyTypes: ['Egress'],
        egress: [{ to: [{ namespaceSelector: {} }] }],
      }),
    ];
    expect(connectionAllowed(bySelector, web, internet, 443)).to.equal(false);
    expect(connectionAllowed(bySelector, web, otherWeb, 443)).to.equal(true);
  });

  it('computes CIDR membership', () => {
    expect(inCidr('10.2.3.4', '10.0.0.0/8')).to.equal(true);
    expect(inCidr('11.2.3.4', '10.0.0.0/8')).to.equal(false);
    expect(inCidr('172.31.255.255', '172.16.0.0/12')).to.equal(true);
    expect(inCidr('172.32.0.0', '172.16.0.0/12')).to.equal(false);
    expect(inCidr('203.0.113.10', '0.0.0.0/0')).to.equal(true);
    expect(inCidr('203.0.113.10', '::/0')).to.equal(false);
  });
});
