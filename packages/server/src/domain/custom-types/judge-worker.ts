/**
 * The thread custom attestation types are judged on (see judge-thread.ts): compiles a type's JSON
 * Schema with Ajv (compiled once per schema text), parses the data once, validates it, judges each
 * rule in JavaScript when jq-subset.ts answers exactly and with jq-wasm (jq-engine.ts) otherwise,
 * and says when each rule starts, so that the main thread can bound each one in time.
 */
import { parentPort } from 'node:worker_threads';
import { Ajv, type AnySchema, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { runJq as jq } from './jq-engine.ts';
import type { FromJudge, RuleResult, ToJudge } from './judge-messages.ts';
import { compileSubset, type Json, jqReadsAlike, runSubset, type SubsetProgram } from './jq-subset.ts';

const port = parentPort!;
const post = (message: FromJudge) => port.postMessage(message);

/** Schemas by their text: a type's schema is compiled once, not per attestation (kept few: a hostile org could upload many). */
const compiled = new Map<string, ValidateFunction>();
const engines = {
  draft7: new Ajv({ strict: false, allErrors: true }),
  2019: new Ajv2019({ strict: false, allErrors: true }),
  2020: new Ajv2020({ strict: false, allErrors: true }),
};

function validatorOf(schemaText: string): ValidateFunction {
  let validate = compiled.get(schemaText);
  if (validate) return validate;
  const schema = JSON.parse(schemaText) as AnySchema;
  const dialect = typeof schema === 'object' && schema !== null && '$schema' in schema ? String(schema.$schema) : '';
  const engine = dialect.includes('2020-12') ? engines[2020] : dialect.includes('2019-09') ? engines[2019] : engines.draft7;
  // Compiled without keeping it by $id, so that two types with the same $id do not collide.
  validate = engine.compile(typeof schema === 'object' && schema !== null ? { ...schema, $id: undefined } : schema);
  if (compiled.size >= 32) compiled.delete(compiled.keys().next().value!);
  compiled.set(schemaText, validate);
  return validate;
}

/** Rules compiled for the subset by their text (undefined: outside it), kept few as schemas are. */
const subsetPrograms = new Map<string, SubsetProgram | undefined>();

function subsetOf(rule: string): SubsetProgram | undefined {
  if (subsetPrograms.has(rule)) return subsetPrograms.get(rule);
  const program = compileSubset(rule);
  if (subsetPrograms.size >= 256) subsetPrograms.delete(subsetPrograms.keys().next().value!);
  subsetPrograms.set(rule, program);
  return program;
}

const cut = (text: string, n = 1000) => (text.length > n ? `${text.slice(0, n)}…` : text);

/** jq's outputs, one per line, as a verdict: `true` when every output is `true` (at least one). */
const verdictOf = (lines: string[]) => ({ passed: lines.length > 0 && lines.every((l) => l === 'true'), output: cut(lines.join('\n')), error: null });

/**
 * Runs `program` on `data` (JSON text). The data goes in as `$data__` (--argjson): jq-wasm copies
 * standard input a byte at a time (a 100 KB document took a second); an argument is parsed at once.
 */
async function runJq(data: string, program: string): Promise<{ output: string } | { error: string; aborted: boolean }> {
  try {
    return { output: (await jq(`$data__ | (${program}\n)`, ['-c', '--argjson', 'data__', data])).trim() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.startsWith('jq: ')) return { error: cut(message.trim()), aborted: false };
    // The engine aborted (its heap's bound is 256 MiB) or failed: jq-engine.ts gives the next run a new one.
    return { error: message.includes('Aborted(') ? memoryBound : `jq's engine failed: ${cut(message, 200)}`, aborted: true };
  }
}

const memoryBound = 'the rule reached the memory bound (256 MiB)';

async function runRule(data: string, rule: string): Promise<RuleResult & { aborted: boolean }> {
  const run = await runJq(data, rule);
  if ('error' in run) return { passed: false, output: null, error: run.error, aborted: run.aborted };
  return { ...verdictOf(run.output === '' ? [] : run.output.split('\n')), aborted: false };
}

/**
 * Every rule in one run of jq (each run costs a few milliseconds however small the data): each
 * rule's outputs or its error, as one line. Undefined when that run did not give them all (a rule
 * that halts jq, or a bound): the rules are then run one at a time.
 */
async function runTogether(data: string, rules: string[]): Promise<RuleResult[] | undefined> {
  const program = `[${rules.map((r) => `(try ([(${r}\n)] | {o: map(tojson)}) catch {e: (. | tostring)})`).join(', ')}]`;
  const run = await runJq(data, program);
  if ('error' in run) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(run.output);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== rules.length) return undefined;
  return parsed.map((r: { o?: string[]; e?: string }) => (r.o ? verdictOf(r.o) : { passed: false, output: null, error: cut(`jq: error: ${String(r.e)}`) }));
}

async function handle(job: ToJudge): Promise<void> {
  if (job.kind === 'check') {
    const problems: string[] = [];
    if (job.schema !== null) {
      try {
        validatorOf(job.schema);
      } catch (error) {
        problems.push(`type_schema is not a valid JSON Schema: ${cut(error instanceof Error ? error.message : String(error), 300)}`);
      }
    }
    for (const [i, rule] of job.rules.entries()) {
      post({ kind: 'rule', id: job.id, index: i });
      // Compiled, not run: a rule in a branch never taken compiles in full and runs nothing.
      const result = await runRule('null', `if false then (${rule}\n) else empty end`);
      // jq's first line says what is wrong; the lines after it quote the wrapper around the rule.
      if (result.error) problems.push(`rule ${i + 1} does not compile: ${result.error.split('\n')[0]!.replace(/ at <top-level>, line \d+:$/, '')}`);
    }
    return finish({ kind: 'checked', id: job.id, problems });
  }
  const schemaErrors: string[] = [];
  // Parsed once, for the schema and for every rule the subset judges.
  const programs = job.rules.map(subsetOf);
  const parsed = job.schema !== null || programs.some(Boolean) ? (JSON.parse(job.data) as Json) : null;
  if (job.schema !== null) {
    const validate = validatorOf(job.schema);
    if (!validate(parsed)) {
      for (const e of (validate.errors ?? []).slice(0, 20)) schemaErrors.push(cut(`${e.instancePath || '/'} ${e.message ?? 'is not valid'}`, 300));
    }
  }
  const alike = programs.some(Boolean) && jqReadsAlike(job.data);
  /** A rule's result from the subset, or undefined: jq judges it. */
  const bySubset = (i: number): RuleResult | undefined => {
    const program = programs[i];
    const outputs = program && alike ? runSubset(program, parsed) : undefined;
    return outputs && verdictOf(outputs.map(String));
  };
  const results = job.each ? [] : job.rules.map((_, i) => bySubset(i));
  const left = job.rules.filter((_, i) => !results[i]);
  // Judged without jq (the job's first bound covers the subset, bounded by its steps): one message, not one a step.
  if (!job.each && !left.length) return finish({ kind: 'judged', id: job.id, schemaErrors, rules: results as RuleResult[] });
  post({ kind: 'validated', id: job.id, schemaErrors });
  if (!job.each) {
    post({ kind: 'together', id: job.id });
    const together = await runTogether(job.data, left);
    if (together) return finish({ kind: 'judged', id: job.id, schemaErrors, rules: results.map((r) => r ?? together.shift()!) });
  }
  const rules = [];
  for (const [i, rule] of job.rules.entries()) {
    post({ kind: 'rule', id: job.id, index: i });
    // The subset's verdict when it was reached before the rules together failed; judged once either way.
    const result = results[i] ?? bySubset(i) ?? (({ aborted: _, ...jqs }) => jqs)(await runRule(job.data, rule));
    post({ kind: 'ruled', id: job.id, index: i, result });
    rules.push(result);
  }
  return finish({ kind: 'judged', id: job.id, schemaErrors, rules });
}

function finish(message: FromJudge): void {
  post(message);
}

let queue = Promise.resolve();
port.on('message', (job: ToJudge) => {
  queue = queue.then(async () => {
    try {
      await handle(job);
    } catch (error) {
      post({ kind: 'failed', id: job.id, message: cut(error instanceof Error ? error.message : String(error), 300) });
    }
  });
});
// Loads the engine before the first job, so that the job's time bound does not count it.
void jq('.', []).then(() => post({ kind: 'ready' }));
