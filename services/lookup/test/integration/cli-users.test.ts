import { expect } from 'chai';
import { cliSuite, json, tix } from './cli-support.js';
import { refusalOf } from './support.js';

const PASSWORD_WARNING =
  'tix: warning: --password is visible to other users of this machine (ps); prefer --password-stdin\n';

describe('admin CLI: user create --password-stdin, user list, user update', function () {
  this.timeout(60_000);
  const lookup = cliSuite();
  let ann: Record<string, unknown>;

  const signIn = (email: string, password: string) => lookup.client.AuthenticatePassword({ email, password });

  it('user create --password-stdin takes the first line of standard input, without a warning', async () => {
    const run = await tix(
      [
        'user',
        'create',
        '--name',
        'Ann',
        '--email',
        'ann@example.com',
        '--role',
        'admin',
        '--password-stdin',
        '--json',
      ],
      lookup.env,
      { input: 'ann stdin password\nnot this line\n' },
    );
    expect(run.stderr).to.equal('');
    ann = json(run);
    expect(ann).to.include({ email: 'ann@example.com', role: 'admin' });
    expect(await signIn('ann@example.com', 'ann stdin password')).to.include({ email: 'ann@example.com' });
  });

  it('user create --password still works, with a warning on stderr and one JSON object on stdout', async () => {
    const run = await tix(
      [
        'user',
        'create',
        '--name',
        'Ada',
        '--email',
        'ada@example.com',
        '--role',
        'agent',
        '--password',
        'ada password',
        '--json',
      ],
      lookup.env,
    );
    expect(run.stderr).to.equal(PASSWORD_WARNING);
    expect(json(run)).to.include({ email: 'ada@example.com', role: 'agent' });
    expect(await signIn('ada@example.com', 'ada password')).to.include({ email: 'ada@example.com' });
  });

  it('user update --deactivate prints the User object; user list leaves the user out unless --all', async () => {
    const ada = json(
      await tix(['user', 'update', '--email', 'ADA@example.com', '--deactivate', '--json'], lookup.env),
    );
    expect(ada).to.deep.equal({
      id: ada.id,
      name: 'Ada',
      email: 'ada@example.com',
      role: 'agent',
      is_active: false,
      is_system: false,
    });
    const { rows } = await lookup.sql.query<{ payload: { data: Record<string, unknown> } }>(
      "SELECT payload FROM outbox_events WHERE event_type = 'user.updated' ORDER BY seq DESC LIMIT 1",
    );
    expect(rows[0]!.payload.data).to.deep.include({
      id: ada.id,
      changed: ['is_active'],
      sessions_ended: true,
    });

    const active = json(await tix(['user', 'list', '--json'], lookup.env));
    // The assistant's system user, made by lookup's migration, is listed too (first: the lowest id).
    const assistant = {
      id: (active.users as { id: number }[])[0]!.id,
      name: 'Tix AI',
      email: 'ai@tix.invalid',
      role: 'agent',
      is_active: true,
      is_system: true,
    };
    const mail = {
      ...assistant,
      id: (active.users as { id: number }[])[1]!.id,
      name: 'Tix Mail',
      email: 'mail@tix.invalid',
    };
    expect(active).to.deep.equal({ users: [assistant, mail, { ...ann, is_active: true }], count: 3 });
    const all = json(await tix(['user', 'list', '--all', '--json'], lookup.env));
    expect(all.count).to.equal(4);
    expect(
      (all.users as { email: string; is_active: boolean }[]).map((u) => [u.email, u.is_active]),
    ).to.deep.equal([
      ['ai@tix.invalid', true],
      ['mail@tix.invalid', true],
      ['ann@example.com', true],
      ['ada@example.com', false],
    ]);
  });

  it('user update --activate --role --name --password-stdin changes them all at once', async () => {
    const ada = json(
      await tix(
        [
          'user',
          'update',
          '--email',
          'ada@example.com',
          '--activate',
          '--role',
          'team_lead',
          '--name',
          'Ada L.',
          '--password-stdin',
          '--json',
        ],
        lookup.env,
        { input: 'ada new password\r\n' },
      ),
    );
    expect(ada).to.include({ name: 'Ada L.', role: 'team_lead', is_active: true });
    expect(await signIn('ada@example.com', 'ada new password')).to.include({ role: 'team_lead' });
    expect(await refusalOf(signIn('ada@example.com', 'ada password'))).to.include({
      kind: 'unauthenticated',
    });
  });

  it('user update refuses an unknown email, the last active admin and a request changing nothing (exit 1)', async () => {
    expect(
      await tix(['user', 'update', '--email', 'ghost@example.com', '--name', 'G', '--json'], lookup.env),
    ).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'tix: User not found: "ghost@example.com" (404 not_found)\n',
    });
    expect(
      await tix(['user', 'update', '--email', 'ann@example.com', '--deactivate', '--json'], lookup.env),
    ).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'tix: Validation failed (422 validation_failed)\n' +
        '  is_active: The last active admin cannot be deactivated or demoted\n',
    });
    expect(await tix(['user', 'update', '--email', 'ann@example.com', '--json'], lookup.env)).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'tix: Validation failed (422 validation_failed)\n' +
        '  body: Give at least one field to change: name, role, is_active or password\n',
    });
  });

  it('--password-stdin with nothing on standard input is a bad command line (exit 2), calling nothing', async () => {
    const run = await tix(['user', 'update', '--email', 'ann@example.com', '--password-stdin'], lookup.env, {
      input: '',
    });
    expect(run).to.deep.equal({
      code: 2,
      stdout: '',
      stderr:
        'tix: user update: --password-stdin: standard input has no password\n' +
        'Run "pnpm tix --help" for the commands and their options.\n',
    });
  });

  it('without --json, user list and user update print readable lines', async () => {
    const list = await tix(['user', 'list', '--all'], lookup.env);
    expect(list.code).to.equal(0);
    expect(list.stdout).to.match(
      /^\d+\tai@tix\.invalid\tagent\tactive \(system\)\tTix AI\n\d+\tmail@tix\.invalid\tagent\tactive \(system\)\tTix Mail\n\d+\tann@example\.com\tadmin\tactive\tAnn\n\d+\tada@example\.com\tteam_lead\tactive\tAda L\.\n4 users\n$/,
    );
    const update = await tix(['user', 'update', '--email', 'ada@example.com', '--name', 'Ada'], lookup.env);
    expect(update.stdout).to.match(/^User \d+ Ada <ada@example\.com>: role team_lead, active\n$/);
  });
});
