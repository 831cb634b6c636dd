import { expect } from 'chai';
import { refusalOf, startLookupFixture, type LookupFixture } from './support.js';

/** Input PostgreSQL cannot store (NUL) or that is absurdly long must be refused like any bad value, never a 500. */
describe('lookup: hostile input is refused, never answered with 500', () => {
  let lookup: LookupFixture;
  const huge = 'x'.repeat(5000);

  before(async () => {
    lookup = await startLookupFixture();
    await lookup.client.CreateProject({ name: 'P', slug: 'p', prefix: 'P' });
  });
  after(() => lookup.stop());

  it('NUL bytes in names, labels and descriptions are 422', async () => {
    expect(
      await refusalOf(
        lookup.client.CreateProject({ name: 'a\u0000', slug: 'q', prefix: 'Q', description: '\u0000' }),
      ),
    ).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validation_errors: {
        name: ['Name must not contain control characters'],
        description: ['Description must not contain control characters'],
      },
    });
    expect(
      await refusalOf(
        lookup.client.CreateProject({
          name: 'Q',
          slug: 'q',
          prefix: 'Q',
          statuses: [
            { slug: 'a', label: 'A\u0000' },
            { slug: 'b', label: 'B', is_closed: true },
          ],
        }),
      ),
    ).to.deep.include({
      validation_errors: { 'statuses[0].label': ['Status label must not contain control characters'] },
    });
    expect(
      await refusalOf(lookup.client.CreateUser({ name: 'a\u0000', email: 'a@b.io', role: 'agent' })),
    ).to.deep.include({
      validation_errors: { name: ['Name must not contain control characters'] },
    });
    expect(
      await refusalOf(lookup.client.CreateTicketType({ project_slug: 'p', name: 'T\u0000', slug: 't' })),
    ).to.deep.include({ validation_errors: { name: ['Name must not contain control characters'] } });
    const user = await lookup.client.CreateUser({ name: 'U', email: 'u@b.io', role: 'agent' });
    expect(
      await refusalOf(
        lookup.client.CreateApiKey({ user_id: user.id, scopes: ['tickets:read'], name: 'k\u0000' }),
      ),
    ).to.deep.include({ validation_errors: { name: ['Name must not contain control characters'] } });
  });

  it('NUL bytes and huge values in lookups answer not found / 401', async () => {
    expect(await refusalOf(lookup.client.ResolveProject({ slug: 'p\u0000' }))).to.deep.equal({
      kind: 'not_found',
      message: 'Project not found',
    });
    expect(await refusalOf(lookup.client.ResolveProject({ slug: huge }))).to.deep.equal({
      kind: 'not_found',
      message: 'Project not found',
    });
    for (const email of ['a\u0000@b.io', `${huge}@b.io`]) {
      expect(
        await refusalOf(lookup.client.AuthenticatePassword({ email, password: 'whatever' })),
      ).to.deep.equal({
        kind: 'unauthenticated',
        message: 'Invalid email or password',
      });
    }
    expect(await refusalOf(lookup.client.AuthenticateApiKey({ key: `tix_${huge}` }))).to.deep.equal({
      kind: 'unauthenticated',
      message: 'Invalid API key',
    });
  });

  it('echoes huge values in messages only cut short', async () => {
    const listed = await refusalOf(lookup.client.ListApiKeys({ user_email: huge }));
    expect(listed).to.deep.equal({ kind: 'not_found', message: `User not found: "${'x'.repeat(64)}…"` });
    const created = await refusalOf(
      lookup.client.CreateApiKey({
        user_email: huge,
        scopes: Array.from({ length: 100 }, (_, i) => `${i}${huge}`),
        project_slug: huge,
      }),
    );
    expect(JSON.stringify(created).length).to.be.lessThan(2000);
    expect((created.validation_errors as { scopes: string[] }).scopes).to.have.length(6);
  });
});
