/**
 * Imported with `node --import` (NODE_OPTIONS, where Node 20 refuses `--cpu-prof`): profiles the
 * process from then on and writes the V8 CPU profile to TRAILPROOF_BENCH_CPU_PROF (a folder) as
 * it exits; each worker thread the same (Node runs `--import` in workers too), as it ends. The inspector session is the process's own, so its calls answer synchronously, on exit too.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';

const dir = process.env.TRAILPROOF_BENCH_CPU_PROF;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  process.once('exit', () => {
    session.post('Profiler.stop', (error, { profile }) => {
      if (!error) writeFileSync(join(dir, `server-${process.pid}${isMainThread ? '' : `-thread-${threadId}`}.cpuprofile`), JSON.stringify(profile));
    });
  });
}
