import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { EX_SOFTWARE } from '../../src/crash.js';
import { startTestProcess } from '../../src/testing/index.js';

const CRASHING = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fixtures/processes/crashing-process.ts',
);

/** The process's fatal log line, parsed. */
function fatalLine(output: string): Record<string, unknown> {
  const line = output.split('\n').find((candidate) => candidate.includes('"level":"fatal"'));
  expect(line, output).to.be.a('string');
  return JSON.parse(line!) as Record<string, unknown>;
}

describe('an uncaught exception in a Tix process', function () {
  this.timeout(20_000);

  for (const crashAs of ['error event', 'rejection']) {
    it(`(${crashAs}) is logged once with the correlation ids in flight, then the process exits ${EX_SOFTWARE}`, async () => {
      const started = startTestProcess(CRASHING, { CRASH_AS: crashAs === 'rejection' ? 'rejection' : '' });
      expect(await started.exited).to.equal(EX_SOFTWARE);
      const fatal = fatalLine(started.output());
      expect(fatal.msg).to.equal('uncaught exception: exiting so the process is restarted clean');
      expect(fatal.correlation_ids).to.deep.equal(['corr-first', 'corr-second']);
      expect(fatal.in_flight_count).to.equal(2);
      expect((fatal.err as { message: string }).message).to.match(
        crashAs === 'rejection' ? /nobody awaited this/ : /Unexpected end of form/,
      );
      expect(fatal.origin).to.equal(crashAs === 'rejection' ? 'unhandledRejection' : 'uncaughtException');
      expect(started.output().match(/"level":"fatal"/g)).to.have.length(1);
    });
  }
});
