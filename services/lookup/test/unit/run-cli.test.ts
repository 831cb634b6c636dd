import { expect } from 'chai';
import { lookupAddress, runCli } from '../../src/cli/run-cli.js';

function io(env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: { env, stdout: (t: string) => (out.stdout += t), stderr: (t: string) => (out.stderr += t) },
  };
}

describe('CLI runner (no service needed)', () => {
  it('reaches the lookup service at LOOKUP_SERVICE_ADDR, default 127.0.0.1:50051', () => {
    expect(lookupAddress({})).to.equal('127.0.0.1:50051');
    expect(lookupAddress({ LOOKUP_SERVICE_ADDR: ' ' })).to.equal('127.0.0.1:50051');
    expect(lookupAddress({ LOOKUP_SERVICE_ADDR: 'lookup:6000' })).to.equal('lookup:6000');
  });

  it('refuses an address that is not host:port (or "none") with exit 2', async () => {
    for (const address of ['none', 'lookup', 'http://lookup:50051']) {
      const { out, io: cliIo } = io({ LOOKUP_SERVICE_ADDR: address });
      expect(await runCli(['key', 'list', '--json'], cliIo)).to.equal(2);
      expect(out).to.deep.equal({
        stdout: '',
        stderr: `tix: LOOKUP_SERVICE_ADDR must be host:port of the lookup service, got "${address}"\n`,
      });
    }
  });

  it('prints usage errors on stderr with exit 2 and help on stdout with exit 0', async () => {
    const bad = io();
    expect(await runCli(['nope'], bad.io)).to.equal(2);
    expect(bad.out).to.deep.equal({
      stdout: '',
      stderr: 'tix: unknown command "nope"\nRun "pnpm tix --help" for the commands and their options.\n',
    });
    const help = io();
    expect(await runCli(['help'], help.io)).to.equal(0);
    expect(help.out.stdout).to.match(/^Usage: pnpm tix/);
    expect(help.out.stderr).to.equal('');
  });
});
