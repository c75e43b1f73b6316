// Tests run the packages' TypeScript sources (the `source` export condition, .mocharc.json), and
// so do the processes they start: Node passes NODE_OPTIONS on to child processes. A test of the
// built files removes the condition for its own children (test/support/built.ts).
const condition = '--conditions=source';
const options = process.env.NODE_OPTIONS ?? '';
if (!options.split(/\s+/).includes(condition)) process.env.NODE_OPTIONS = `${options} ${condition}`.trim();
