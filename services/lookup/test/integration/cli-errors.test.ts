import { expect } from 'chai';
import { freePort } from '@tix/kit/testing';
import { cliSuite, tix } from './cli-support.js';

const USAGE_HINT = 'Run "pnpm tix --help" for the commands and their options.\n';

describe('admin CLI (pnpm tix): bad command lines, help and an unreachable service', function () {
  this.timeout(60_000);
  const lookup = cliSuite();

  it('bad command lines exit 2 with a message naming the problem, without calling the service', async () => {
    const cases: [string[], string][] = [
      [[], 'tix: no command given\n'],
      [['tickets', 'list'], 'tix: unknown command "tickets list"\n'],
      [
        ['project', 'create', '--name', 'X', '--json'],
        'tix: project create: missing required options --slug, --prefix\n',
      ],
      [['key', 'list', '--owner', 'a@b.io'], 'tix: key list: unknown option --owner\n'],
      [
        ['project', 'create', '--name', 'X', '--slug', 'x', '--prefix', 'X', '--statuses', 'open:Open:maybe'],
        'tix: project create: --statuses entry 1 ("open:Open:maybe"): the third part can only be "closed", got "maybe"\n',
      ],
      [['key', 'revoke', '--id', 'seven'], 'tix: key revoke: --id must be a positive integer, got "seven"\n'],
    ];
    for (const [args, message] of cases) {
      expect(await tix(args, { LOOKUP_SERVICE_ADDR: '127.0.0.1:1' }), args.join(' ')).to.deep.equal({
        code: 2,
        stdout: '',
        stderr: message + USAGE_HINT,
      });
    }
  });
  it('--help prints the usage on stdout and exits 0', async () => {
    const run = await tix(['--help'], lookup.env);
    expect(run.code).to.equal(0);
    expect(run.stdout).to.match(/^Usage: pnpm tix <command>/);
    expect(run.stdout).to.contain('key revoke --id ID');
  });
  it('an unreachable service exits 3 with a message naming the address', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    expect(await tix(['key', 'list', '--json'], { LOOKUP_SERVICE_ADDR: address })).to.deep.equal({
      code: 3,
      stdout: '',
      stderr: `tix: cannot reach the lookup service at ${address} — is the fleet running? (pnpm start)\n`,
    });
  });
  it('defaults to 127.0.0.1:50051 when LOOKUP_SERVICE_ADDR is unset', async () => {
    const run = await tix(['key', 'list', '--json'], { LOOKUP_SERVICE_ADDR: '' });
    // Whether or not a fleet runs here, the CLI must have used the default address.
    if (run.code === 3) {
      expect(run.stderr).to.equal(
        'tix: cannot reach the lookup service at 127.0.0.1:50051 — is the fleet running? (pnpm start)\n',
      );
    } else {
      expect(run.code, run.stderr).to.be.oneOf([0, 1]);
    }
  });
});
