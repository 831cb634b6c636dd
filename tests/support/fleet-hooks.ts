/** Mocha global fixtures: one fleet for the whole end-to-end run. */
import { fleet, startTestFleet, stopTestFleet } from './fleet.js';

export async function mochaGlobalSetup(): Promise<void> {
  await startTestFleet();
}

export async function mochaGlobalTeardown(): Promise<void> {
  // The crash-restart suite kills a process on purpose (SIGKILL); any other exit was the process's own.
  for (const crash of fleet().crashes) {
    console.error(
      `fleet: ${crash.name} exited (code ${crash.code}, signal ${crash.signal}) at ${new Date(crash.at).toISOString()}`,
    );
  }
  await stopTestFleet();
}
