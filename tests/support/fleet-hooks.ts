/** Mocha global fixtures: one fleet for the whole end-to-end run. */
import { startTestFleet, stopTestFleet } from './fleet.js';

export async function mochaGlobalSetup(): Promise<void> {
  await startTestFleet();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await stopTestFleet();
}
