import { expect } from 'chai';
import { appUrlOf, firstLine, lookupAddress, runCli } from '../../src/cli/run-cli.js';

/** An io over `env` whose standard input is `input`; `out.stdinReads` counts how often it was read. */
function io(env: NodeJS.ProcessEnv = {}, input = '') {
  const out = { stdout: '', stderr: '', stdinReads: 0 };
  return {
    out,
    io: {
      env,
      stdout: (t: string) => (out.stdout += t),
      stderr: (t: string) => (out.stderr += t),
      stdin: () => {
        out.stdinReads += 1;
        return Promise.resolve(input);
      },
    },
  };
}

const CREATE = ['user', 'create', '--name', 'Bo', '--email', 'bo@x.io', '--role', 'agent'];
const NO_SERVICE = { LOOKUP_SERVICE_ADDR: 'none' };
const ADDRESS_REFUSED = 'tix: LOOKUP_SERVICE_ADDR must be host:port of the lookup service, got "none"\n';

describe('CLI runner (no service needed)', () => {
  it('reaches the lookup service at LOOKUP_SERVICE_ADDR, default 127.0.0.1:50051', () => {
    expect(lookupAddress({})).to.equal('127.0.0.1:50051');
    expect(lookupAddress({ LOOKUP_SERVICE_ADDR: ' ' })).to.equal('127.0.0.1:50051');
    expect(lookupAddress({ LOOKUP_SERVICE_ADDR: 'lookup:6000' })).to.equal('lookup:6000');
  });

  it('points reset links at APP_URL, else the local session host on GATEWAY_APP_PORT (default 8081)', () => {
    expect(appUrlOf({})).to.equal('http://localhost:8081');
    expect(appUrlOf({ GATEWAY_APP_PORT: '9001' })).to.equal('http://localhost:9001');
    expect(appUrlOf({ APP_URL: 'https://tix.example.com', GATEWAY_APP_PORT: '9001' })).to.equal(
      'https://tix.example.com',
    );
  });

  it('refuses an address that is not host:port (or "none") with exit 2', async () => {
    for (const address of ['none', 'lookup', 'http://lookup:50051']) {
      const { out, io: cliIo } = io({ LOOKUP_SERVICE_ADDR: address });
      expect(await runCli(['key', 'list', '--json'], cliIo)).to.equal(2);
      expect(out).to.deep.equal({
        stdout: '',
        stderr: `tix: LOOKUP_SERVICE_ADDR must be host:port of the lookup service, got "${address}"\n`,
        stdinReads: 0,
      });
    }
  });

  it('says the assistant is not deployed (AI_SERVICE_ADDR=none) with exit 3, and refuses a bad address with exit 2', async () => {
    const lookup = { LOOKUP_SERVICE_ADDR: '127.0.0.1:1' };
    const none = io({ ...lookup, AI_SERVICE_ADDR: 'none' });
    expect(await runCli(['ai', 'eval', '--json'], none.io)).to.equal(3);
    expect(none.out).to.deep.equal({
      stdout: '',
      stderr: 'tix: the assistant is not deployed (AI_SERVICE_ADDR=none)\n',
      stdinReads: 0,
    });
    const bad = io({ ...lookup, AI_SERVICE_ADDR: 'http://ai:50056' });
    expect(await runCli(['ai', 'eval'], bad.io)).to.equal(2);
    expect(bad.out.stderr).to.equal(
      'tix: AI_SERVICE_ADDR must be host:port of the ai service, got "http://ai:50056"\n',
    );
  });

  it('prints usage errors on stderr with exit 2 and help on stdout with exit 0', async () => {
    const bad = io();
    expect(await runCli(['nope'], bad.io)).to.equal(2);
    expect(bad.out).to.deep.equal({
      stdout: '',
      stderr: 'tix: unknown command "nope"\nRun "pnpm tix --help" for the commands and their options.\n',
      stdinReads: 0,
    });
    const help = io();
    expect(await runCli(['help'], help.io)).to.equal(0);
    expect(help.out.stdout).to.match(/^Usage: pnpm tix/);
    expect(help.out.stderr).to.equal('');
  });

  it('warns on stderr that --password is visible in ps, and reads no standard input for it', async () => {
    const run = io(NO_SERVICE, 'unused\n');
    expect(await runCli([...CREATE, '--password', 'long enough', '--json'], run.io)).to.equal(2);
    expect(run.out).to.deep.equal({
      stdout: '',
      stderr:
        'tix: warning: --password is visible to other users of this machine (ps); prefer --password-stdin\n' +
        ADDRESS_REFUSED,
      stdinReads: 0,
    });
  });

  it('reads standard input for --password-stdin only, with no warning', async () => {
    for (const argv of [
      [...CREATE, '--password-stdin'],
      ['user', 'update', '--email', 'bo@x.io', '--password-stdin'],
    ]) {
      const run = io(NO_SERVICE, 'long enough\nsecond line\n');
      expect(await runCli(argv, run.io)).to.equal(2);
      expect(run.out).to.deep.equal({ stdout: '', stderr: ADDRESS_REFUSED, stdinReads: 1 });
    }
    const without = io(NO_SERVICE, 'long enough\n');
    expect(await runCli(['user', 'update', '--email', 'bo@x.io', '--deactivate'], without.io)).to.equal(2);
    expect(without.out.stdinReads).to.equal(0);
  });

  it('refuses --password-stdin with nothing on standard input (exit 2)', async () => {
    for (const input of ['', '\n', '\r\nlater']) {
      const run = io(NO_SERVICE, input);
      expect(await runCli([...CREATE, '--password-stdin'], run.io), JSON.stringify(input)).to.equal(2);
      expect(run.out.stderr).to.equal(
        'tix: user create: --password-stdin: standard input has no password\n' +
          'Run "pnpm tix --help" for the commands and their options.\n',
      );
    }
  });

  it('takes the first line of standard input as the password, without its line break', () => {
    expect(firstLine('pass word\n')).to.equal('pass word');
    expect(firstLine('pass word\r\nnext')).to.equal('pass word');
    expect(firstLine(' spaced  ')).to.equal(' spaced  ');
    expect(firstLine('')).to.equal('');
  });
});
