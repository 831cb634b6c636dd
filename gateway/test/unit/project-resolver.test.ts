import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { lookup } from '@tix/protos';
import { createProjectResolver } from '../../src/projects/project-resolver.js';

const ACME: lookup.Project__Output = {
  id: 1,
  name: 'Acme',
  slug: 'acme',
  prefix: 'A',
  description: '',
  statuses: [],
};

function setup(ttlMs = 1_000) {
  let time = 0;
  const calls: lookup.ResolveProjectRequest[] = [];
  const resolver = createProjectResolver({
    lookup: {
      ResolveProject(request: lookup.ResolveProjectRequest) {
        calls.push(request);
        if (request.id === 1 || request.slug === 'acme') return Promise.resolve(ACME);
        if (request.id === 13) return Promise.reject(AppError.unavailable('Service temporarily unavailable'));
        return Promise.reject(AppError.notFound('no project with that id (lookup wording)'));
      },
    },
    ttlMs,
    now: () => time,
  });
  return { resolver, calls, advance: (ms: number) => (time += ms) };
}

describe('createProjectResolver', () => {
  it('caches a found project under its id and slug until the TTL passes', async () => {
    const { resolver, calls, advance } = setup();
    expect(await resolver.bySlug('acme', {})).to.equal(ACME);
    expect(await resolver.byId(1, {})).to.equal(ACME);
    expect(calls).to.deep.equal([{ slug: 'acme' }]);
    advance(1_000);
    await resolver.byId(1, {});
    expect(calls).to.deep.equal([{ slug: 'acme' }, { id: 1 }]);
  });

  it('404 Project not found, never cached (a new project shows up at once)', async () => {
    const { resolver, calls } = setup();
    for (let i = 0; i < 2; i += 1) {
      const error = (await resolver.bySlug('nope', {}).catch((caught: unknown) => caught)) as AppError;
      expect([error.httpStatus, error.message]).to.deep.equal([404, 'Project not found']);
    }
    expect(calls).to.have.length(2);
  });

  it('answers ids outside int32 and empty or huge slugs 404 without a call', async () => {
    const { resolver, calls } = setup();
    for (const attempt of [
      resolver.byId(0, {}),
      resolver.byId(2 ** 31, {}),
      resolver.bySlug('', {}),
      resolver.bySlug('x'.repeat(201), {}),
    ]) {
      expect(((await attempt.catch((caught: unknown) => caught)) as AppError).message).to.equal(
        'Project not found',
      );
    }
    expect(calls).to.deep.equal([]);
  });

  it('passes service failures through', async () => {
    const { resolver } = setup();
    expect(
      ((await resolver.byId(13, {}).catch((caught: unknown) => caught)) as AppError).httpStatus,
    ).to.equal(503);
  });

  it('shares one call between concurrent requests', async () => {
    const { resolver, calls } = setup();
    await Promise.all([resolver.byId(1, {}), resolver.byId(1, {}), resolver.byId(1, {})]);
    expect(calls).to.have.length(1);
  });
});
