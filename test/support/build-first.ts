/**
 * Mocha's global set-up (.mocharc.json's `require`): the packages built before the first test, as
 * tests start `trailproof` children from the built command (processes.ts). Built inside the first
 * test that needed it, a build after a change of the sources (a minute at load 20) used up that
 * test's time-out; here it has none. About a second when nothing changed (tsc -b).
 */
import { buildPackages } from './processes.ts';

export async function mochaGlobalSetup(): Promise<void> {
  await buildPackages();
}
