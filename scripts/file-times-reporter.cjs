// A mocha reporter that writes, for each test file, its wall time and the CPU seconds this
// process and the children it reaped spent meanwhile (/proc/self/stat: utime, stime, cutime,
// cstime), as tab-separated lines to $TRAILPROOF_FILE_TIMES (default file-times.tsv), and the
// spec reporter's output as usual. What the suite's time is spent on (bench/results/suite-times-*.md):
//
//   pnpm exec mocha --reporter scripts/file-times-reporter.cjs $(bash scripts/test-files.sh sqlite)
'use strict';
const { appendFileSync, readFileSync, writeFileSync } = require('node:fs');
const { relative } = require('node:path');
const Mocha = require('mocha');

const ticks = 100; // USER_HZ on Linux
function cpuSeconds() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]) / ticks);
  return { self: utime + stime, children: cutime + cstime };
}

class FileTimes extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const out = process.env.TRAILPROOF_FILE_TIMES ?? 'file-times.tsv';
    writeFileSync(out, 'file\twall_s\tcpu_self_s\tcpu_children_s\ttests\tfailed\tload\n');
    let current = null;
    const finish = () => {
      if (!current) return;
      const cpu = cpuSeconds();
      const line = [
        current.file,
        ((performance.now() - current.started) / 1000).toFixed(2),
        (cpu.self - current.cpu.self).toFixed(2),
        (cpu.children - current.cpu.children).toFixed(2),
        current.tests,
        current.failed,
        readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
      ];
      appendFileSync(out, `${line.join('\t')}\n`);
      current = null;
    };
    runner.on(Mocha.Runner.constants.EVENT_SUITE_BEGIN, (suite) => {
      if (!suite.file || suite.parent?.root !== true) return;
      const file = relative(process.cwd(), suite.file);
      if (current?.file === file) return;
      finish();
      current = { file, started: performance.now(), cpu: cpuSeconds(), tests: 0, failed: 0 };
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, () => current && current.tests++);
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, () => current && (current.tests++, current.failed++));
    runner.on(Mocha.Runner.constants.EVENT_RUN_END, finish);
  }
}
module.exports = FileTimes;
