import { expect } from 'chai';
import { parseCommandLine, UsageError } from '../../src/cli/parse-command.js';

function usageError(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    expect(error).to.be.instanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected a UsageError for ${argv.join(' ')}`);
}

/** `argv` parses to running `command`, its output JSON when `json`. */
function expectRun(argv: string[], command: object, json = false): void {
  expect(parseCommandLine(argv)).to.deep.equal({ kind: 'run', json, command });
}

describe('CLI command line', () => {
  it('parses project create with the default workflow (empty statuses) and --json', () => {
    expectRun(
      ['project', 'create', '--name', 'Acme', '--slug', 'acme', '--prefix', 'AC', '--json'],
      {
        name: 'project create',
        projectName: 'Acme',
        slug: 'acme',
        prefix: 'AC',
        description: '',
        statuses: [],
      },
      true,
    );
  });

  it('parses project create with --statuses and --description (also as --opt=value)', () => {
    expectRun(
      [
        'project',
        'create',
        '--name=Acme',
        '--slug',
        'acme',
        '--prefix',
        'AC',
        '--statuses',
        'new:New,done:Done:closed',
        '--description',
        'Our work',
      ],
      {
        name: 'project create',
        projectName: 'Acme',
        slug: 'acme',
        prefix: 'AC',
        description: 'Our work',
        statuses: [
          { slug: 'new', label: 'New', is_closed: false },
          { slug: 'done', label: 'Done', is_closed: true },
        ],
      },
    );
  });

  it('parses ticket-type create; --fields defaults to an empty schema', () => {
    expectRun(['ticket-type', 'create', '--project', 'acme', '--name', 'Bug', '--slug', 'bug', '--default'], {
      name: 'ticket-type create',
      projectSlug: 'acme',
      typeName: 'Bug',
      slug: 'bug',
      description: '',
      isDefault: true,
      fieldsJson: '[]',
    });
    const fields = '[{"name":"x","label":"X","type":"text"}]';
    const parsed = parseCommandLine([
      'ticket-type',
      'create',
      '--project',
      'a',
      '--name',
      'B',
      '--slug',
      'b',
      '--fields',
      fields,
    ]);
    expect(parsed).to.have.nested.property('command.fieldsJson', fields);
    expect(parsed).to.have.nested.property('command.isDefault', false);
  });

  it('parses user create with and without --password', () => {
    expectRun(['user', 'create', '--name', 'Bo', '--email', 'bo@x.io', '--role', 'agent'], {
      name: 'user create',
      userName: 'Bo',
      email: 'bo@x.io',
      role: 'agent',
    });
    expect(
      parseCommandLine([
        'user',
        'create',
        '--name',
        'Bo',
        '--email',
        'bo@x.io',
        '--role',
        'agent',
        '--password',
        'pw',
      ]),
    ).to.have.nested.property('command.password', 'pw');
  });

  it('parses user create with --password-stdin', () => {
    expectRun(
      ['user', 'create', '--name', 'Bo', '--email', 'bo@x.io', '--role', 'agent', '--password-stdin'],
      { name: 'user create', userName: 'Bo', email: 'bo@x.io', role: 'agent', passwordStdin: true },
    );
  });

  it('parses user list, active users only unless --all', () => {
    expectRun(['user', 'list', '--json'], { name: 'user list', all: false }, true);
    expectRun(['user', 'list', '--all'], { name: 'user list', all: true });
  });

  it('parses user update with each of its options', () => {
    expectRun(['user', 'update', '--email', 'bo@x.io', '--name', 'Bo B.'], {
      name: 'user update',
      email: 'bo@x.io',
      userName: 'Bo B.',
    });
    expectRun(
      [
        'user',
        'update',
        '--email',
        'bo@x.io',
        '--role',
        'viewer',
        '--deactivate',
        '--password-stdin',
        '--json',
      ],
      {
        name: 'user update',
        email: 'bo@x.io',
        role: 'viewer',
        isActive: false,
        passwordStdin: true,
      },
      true,
    );
    expectRun(['user', 'update', '--email', 'bo@x.io', '--activate'], {
      name: 'user update',
      email: 'bo@x.io',
      isActive: true,
    });
    // Nothing to change is the service's answer (422 on body), not a usage error.
    expectRun(['user', 'update', '--email', 'bo@x.io'], { name: 'user update', email: 'bo@x.io' });
  });

  it('parses key create, splitting and trimming the scope list', () => {
    expectRun(
      [
        'key',
        'create',
        '--user',
        'a@b.io',
        '--scopes',
        'tickets:read, comments:read,',
        '--project',
        'acme',
        '--name',
        'CI',
      ],
      {
        name: 'key create',
        userEmail: 'a@b.io',
        scopes: ['tickets:read', 'comments:read'],
        projectSlug: 'acme',
        keyName: 'CI',
      },
    );
  });

  it('parses key list, key revoke and seed --demo', () => {
    expectRun(['key', 'list', '--json'], { name: 'key list' }, true);
    expectRun(['key', 'list', '--user', 'a@b.io', '--project', 'p'], {
      name: 'key list',
      userEmail: 'a@b.io',
      projectSlug: 'p',
    });
    expectRun(['key', 'revoke', '--id', '42'], { name: 'key revoke', id: 42 });
    expectRun(['seed', '--demo', '--json'], { name: 'seed demo', withTickets: true }, true);
    expectRun(['seed', '--demo', '--without-tickets'], { name: 'seed demo', withTickets: false });
  });

  it('parses ai eval: every project and k = 3 unless given', () => {
    expectRun(['ai', 'eval'], { name: 'ai eval', k: 3 });
    expectRun(
      ['ai', 'eval', '--project', 'support', '--k', '5', '--json'],
      { name: 'ai eval', projectSlug: 'support', k: 5 },
      true,
    );
  });

  it('parses project update, status add/update/remove and ticket-type update; absent options stay absent', () => {
    const run = (argv: string[]) => {
      const parsed = parseCommandLine(argv);
      return parsed.kind === 'run' ? parsed.command : parsed;
    };
    expect(run(['project', 'update', '--project', 'sup', '--name', 'Support'])).to.deep.equal({
      name: 'project update',
      projectSlug: 'sup',
      projectName: 'Support',
    });
    expect(
      run(['status', 'add', '--project', 'sup', '--slug', 'review', '--label', 'Review', '--position', '0']),
    ).to.deep.equal({
      name: 'status add',
      projectSlug: 'sup',
      slug: 'review',
      label: 'Review',
      isClosed: false,
      position: 0,
    });
    expect(run(['status', 'update', '--project', 'sup', '--slug', 'review', '--closed'])).to.deep.equal({
      name: 'status update',
      projectSlug: 'sup',
      slug: 'review',
      isClosed: true,
    });
    expect(run(['status', 'update', '--project', 'sup', '--slug', 'review', '--open'])).to.deep.include({
      isClosed: false,
    });
    expect(
      run(['status', 'remove', '--project', 'sup', '--slug', 'review', '--move-to', 'open']),
    ).to.deep.equal({ name: 'status remove', projectSlug: 'sup', slug: 'review', moveTo: 'open' });
    expect(
      run(['ticket-type', 'update', '--project', 'sup', '--slug', 'bug', '--fields', '[]', '--retire']),
    ).to.deep.equal({
      name: 'ticket-type update',
      projectSlug: 'sup',
      slug: 'bug',
      fieldsJson: '[]',
      isRetired: true,
    });
    expect(run(['user', 'reset-link', '--email', 'a@b.io'])).to.deep.equal({
      name: 'user reset-link',
      email: 'a@b.io',
    });
    expect(usageError(['status', 'update', '--project', 'p', '--slug', 's', '--open', '--closed'])).to.equal(
      'status update: give --closed or --open, not both',
    );
    expect(
      usageError(['status', 'add', '--project', 'p', '--slug', 's', '--label', 'S', '--position', '-1']),
    ).to.match(/position/);
    expect(usageError(['ticket-type', 'update', '--project', 'p', '--slug', 's', '--fields', '{'])).to.match(
      /--fields is not valid JSON/,
    );
  });

  it('answers help for help, --help, -h and a command with --help', () => {
    for (const argv of [['help'], ['--help'], ['-h'], ['key', 'create', '--help']]) {
      expect(parseCommandLine(argv), argv.join(' ')).to.deep.equal({ kind: 'help' });
    }
  });

  it('refuses bad command lines with a message naming the problem', () => {
    expect(usageError([])).to.equal('no command given');
    expect(usageError(['projects', 'create'])).to.equal('unknown command "projects create"');
    expect(usageError(['key', 'delete', '--id', '1'])).to.equal('unknown command "key delete"');
    expect(usageError(['key'])).to.equal('unknown command "key"');
    expect(usageError(['project', 'create', '--name', 'A'])).to.equal(
      'project create: missing required options --slug, --prefix',
    );
    expect(usageError(['key', 'revoke'])).to.equal('key revoke: missing required option --id');
    expect(usageError(['key', 'list', '--colour', 'red'])).to.equal('key list: unknown option --colour');
    expect(usageError(['key', 'list', 'extra'])).to.equal('key list: unexpected argument "extra"');
    expect(usageError(['key', 'revoke', '--id'])).to.equal('key revoke: option --id needs a value');
    expect(usageError(['key', 'revoke', '--id', 'abc'])).to.equal(
      'key revoke: --id must be a positive integer, got "abc"',
    );
    expect(usageError(['key', 'revoke', '--id', '0'])).to.equal(
      'key revoke: --id must be a positive integer, got "0"',
    );
    expect(usageError(['key', 'revoke', '--id', '99999999999'])).to.equal(
      'key revoke: --id must be a positive integer, got "99999999999"',
    );
    expect(usageError(['seed'])).to.equal('seed: seed needs --demo (the demo data set is the only one)');
    expect(
      usageError(['project', 'create', '--name', 'A', '--slug', 'a', '--prefix', 'A', '--statuses', 'open']),
    ).to.equal('project create: --statuses entry 1 ("open") must be slug:Label or slug:Label:closed');
    expect(
      usageError(['ticket-type', 'create', '--project', 'a', '--name', 'B', '--slug', 'b', '--fields', '[{']),
    ).to.match(/^ticket-type create: --fields is not valid JSON: /);
    expect(
      usageError(['user', 'create', '--name', 'A', '--email', 'a@b.io', '--role', 'agent', '--json=yes']),
    ).to.match(/^user create: /);
    expect(
      usageError([
        'user',
        'create',
        '--name',
        'A',
        '--email',
        'a@b.io',
        '--role',
        'agent',
        '--password',
        'pw',
        '--password-stdin',
      ]),
    ).to.equal('user create: give --password or --password-stdin, not both');
    expect(usageError(['user', 'update', '--name', 'A'])).to.equal(
      'user update: missing required option --email',
    );
    expect(usageError(['user', 'update', '--email', 'a@b.io', '--activate', '--deactivate'])).to.equal(
      'user update: give --activate or --deactivate, not both',
    );
    expect(usageError(['user', 'update', '--email', 'a@b.io', '--password', 'pw'])).to.equal(
      'user update: unknown option --password',
    );
    expect(usageError(['user', 'list', '--inactive'])).to.equal('user list: unknown option --inactive');
    expect(usageError(['user', 'delete'])).to.equal('unknown command "user delete"');
    expect(usageError(['ai', 'eval', '--k', '0'])).to.equal(
      'ai eval: --k must be a positive integer, got "0"',
    );
    expect(usageError(['ai', 'eval', '--threshold', '0.8'])).to.equal('ai eval: unknown option --threshold');
    expect(usageError(['ai'])).to.equal('unknown command "ai"');
  });
});
