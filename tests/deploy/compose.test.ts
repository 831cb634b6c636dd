/**
 * deploy/compose.yaml holds the fleet together for people with Docker (checks/compose.ts), and the
 * check reports a missing migration wait, a missing healthcheck and an environment a process refuses.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listDeployables, REPO_ROOT } from '../../deploy/images/deployables.js';
import { composeProblems, interpolateDefaults, readCompose } from './checks/compose.js';
import type { JsonObject } from './kustomize/objects.js';
import { processModels } from './support.js';

const COMPOSE_FILE = path.join(REPO_ROOT, 'deploy/compose.yaml');

function services(compose: JsonObject): Record<string, JsonObject> {
  return compose.services as Record<string, JsonObject>;
}

describe('deploy: compose', () => {
  it('runs every built process after its migration, with healthchecks, the stores and one environment', async () => {
    expect(
      composeProblems(readCompose(COMPOSE_FILE), listDeployables(), await processModels()),
    ).to.deep.equal([]);
  });

  it('uses the variables of deploy/.env when set, else the local defaults', () => {
    expect(
      interpolateDefaults('postgresql://tix:${TIX_POSTGRES_PASSWORD:-tix-local-only}@postgres'),
    ).to.equal('postgresql://tix:tix-local-only@postgres');
  });

  it('reports a service that does not wait for its migration, and a process without a healthcheck', async () => {
    const compose = readCompose(COMPOSE_FILE);
    delete (services(compose).lookup!.depends_on as JsonObject)['migrate-lookup'];
    delete services(compose).gateway!.healthcheck;
    expect(composeProblems(compose, listDeployables(), await processModels())).to.have.members([
      'lookup: does not wait for migrate-lookup to complete',
      'gateway: no healthcheck.mjs healthcheck',
    ]);
  });

  it('reports an environment that leaves a process on loopback or that it refuses', async () => {
    const compose = readCompose(COMPOSE_FILE);
    const lookup = services(compose).lookup!;
    lookup.environment = {
      ...(lookup.environment as JsonObject),
      AMQP_URL: 'amqp://guest:guest@localhost:5672',
      GRPC_PORT: 'many',
    };
    const problems = composeProblems(compose, listDeployables(), await processModels());
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(
      /^lookup: refuses the compose environment: Invalid configuration:; GRPC_PORT: /,
    );
    delete lookup.environment.GRPC_PORT;
    expect(composeProblems(compose, listDeployables(), await processModels())).to.deep.equal([
      'lookup: amqpUrl = amqp://guest:guest@localhost:5672 is a loopback address in a container',
    ]);
  });

  it('gives the model server settings to the assistant alone: retrieval, no address, no key, unless set', () => {
    const compose = readCompose(COMPOSE_FILE);
    const settings = ['AI_PROVIDER', 'AI_OPENAI_BASE_URL', 'AI_OPENAI_MODEL', 'AI_OPENAI_API_KEY'];
    expect(services(compose).ai!.environment).to.include({
      AI_PROVIDER: 'retrieval',
      AI_OPENAI_BASE_URL: '',
      AI_OPENAI_API_KEY: '',
    });
    for (const [name, service] of Object.entries(services(compose))) {
      if (name !== 'ai') expect(service.environment ?? {}, name).not.to.have.any.keys(...settings);
    }
    // The key comes from the environment of whoever runs compose, never from this file.
    expect(readFileSync(COMPOSE_FILE, 'utf8')).to.match(
      /^ +AI_OPENAI_API_KEY: '\$\{AI_OPENAI_API_KEY:-\}'$/m,
    );
  });
});
