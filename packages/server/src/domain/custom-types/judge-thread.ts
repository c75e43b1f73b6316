/**
 * Judging custom attestations off the event loop: a thread of its own runs the type's JSON Schema
 * and jq rules (judge-worker.ts), one job at a time, each rule bounded in time and the thread in
 * memory. A rule past a bound ends the thread (a new one starts for the next job) and is judged
 * not to pass, with the bound it hit as its error, so nothing a type or its data holds can stall
 * the server or another request for more than the bound.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { siblingModule, startModuleWorker } from '../../store/sqlite/threads.ts';
import type { FromJudge, JudgeJob, RuleResult, ToJudge } from './judge-messages.ts';

export interface JudgeBounds {
  /** How long one rule (or the schema's compilation and validation) may run. */
  ruleMs: number;
  /** How long the thread may take to start (load Ajv and jq's engine). */
  startMs: number;
  /** The thread's JavaScript heap in MiB (jq's own heap is bounded at 256 MiB by its build). */
  heapMiB: number;
  /** Jobs that may wait for the thread; more are refused as busy. */
  queue: number;
}

export const judgeBounds: JudgeBounds = { ruleMs: 2_000, startMs: 60_000, heapMiB: 128, queue: 256 };

export type Judgement = { schemaErrors: string[]; rules: RuleResult[] };
type Job = { message: JudgeJob; resolve: (answer: FromJudge) => void };
/** `current.rule` while every rule runs in one run of jq. */
const together = -2;

/** More jobs wait than the queue holds: the caller is asked to try again. */
export class JudgeBusyError extends Error {
  override readonly name = 'JudgeBusyError';
}

export class Judge {
  private worker: Worker | undefined;
  private ready = false;
  private readonly waiting: Job[] = [];
  private current: { id: number; job: Job; rule: number; schemaErrors: string[]; results: RuleResult[] } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private nextId = 1;

  constructor(private readonly bounds: JudgeBounds = judgeBounds) {}

  /** The jobs it holds: the one running and those waiting. */
  get jobs(): number {
    return this.waiting.length + (this.current ? 1 : 0);
  }

  /** The data (JSON text) judged by a version's schema (JSON text, or null) and rules. */
  async judge(schema: string | null, rules: string[], data: string): Promise<Judgement> {
    const answer = await this.submit({ kind: 'judge', schema, rules, data });
    if (answer.kind === 'judged') return { schemaErrors: answer.schemaErrors, rules: answer.rules };
    if (answer.kind === 'failed') return { schemaErrors: [`the data could not be judged: ${answer.message}`], rules: [] };
    throw new Error(`unexpected answer ${answer.kind}`);
  }

  /** What is wrong with a schema and rules before they are saved: empty when the schema and every rule compile. */
  async check(schema: string | null, rules: string[]): Promise<string[]> {
    const answer = await this.submit({ kind: 'check', schema, rules });
    if (answer.kind === 'checked') return answer.problems;
    if (answer.kind === 'failed') return [answer.message];
    throw new Error(`unexpected answer ${answer.kind}`);
  }

  /** Ends the thread; jobs waiting are answered as failed. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    clearTimeout(this.timer);
    // The running job first: one judged with all its rules at once would go back to wait, and be answered below.
    this.fail('the server is stopping');
    for (const job of this.waiting.splice(0)) job.resolve({ kind: 'failed', id: 0, message: 'the server is stopping' });
    await worker?.terminate();
  }

  private submit(message: JudgeJob): Promise<FromJudge> {
    if (this.waiting.length >= this.bounds.queue) return Promise.reject(new JudgeBusyError('too many custom attestations are being judged: try again shortly'));
    return new Promise((resolve) => {
      this.waiting.push({ message, resolve });
      this.pump();
    });
  }

  private pump(): void {
    // The thread keeps the process alive only while a job waits for it.
    if (this.current || this.waiting.length) this.worker?.ref();
    else this.worker?.unref();
    if (this.current || !this.waiting.length) return;
    if (!this.worker) {
      this.start();
      return;
    }
    if (!this.ready) return;
    const job = this.waiting.shift()!;
    const id = this.nextId++;
    this.current = { id, job, rule: -1, schemaErrors: [], results: [] };
    this.arm(`${job.message.kind === 'check' ? 'the schema' : 'the schema validation'} did not finish within ${this.bounds.ruleMs / 1000} s`);
    this.worker.postMessage({ ...job.message, id } as ToJudge);
  }

  private start(): void {
    const worker = startModuleWorker(
      siblingModule('judge-worker', import.meta.url),
      {},
      { maxOldGenerationSizeMb: this.bounds.heapMiB, maxYoungGenerationSizeMb: Math.max(4, this.bounds.heapMiB / 8) },
    );
    this.worker = worker;
    this.ready = false;
    this.timer = setTimeout(() => this.restart('the judging thread did not start in time'), this.bounds.startMs).unref();
    this.pump();
    worker.on('message', (message: FromJudge) => this.onMessage(worker, message));
    worker.once('error', (error) => {
      const outOfMemory = (error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.restart(outOfMemory ? `the rule reached the memory bound (${this.bounds.heapMiB} MiB)` : `the judging thread failed: ${error.message}`, worker);
    });
    worker.once('exit', () => this.restart('the judging thread stopped', worker));
  }

  private onMessage(worker: Worker, message: FromJudge): void {
    if (worker !== this.worker) return;
    if (message.kind === 'ready') {
      clearTimeout(this.timer);
      this.ready = true;
      this.pump();
      return;
    }
    const current = this.current;
    if (!current || message.id !== current.id) return;
    if (message.kind === 'validated') return void (current.schemaErrors = message.schemaErrors);
    if (message.kind === 'together') {
      current.rule = together;
      this.arm('the rules did not finish within the bound');
      return;
    }
    if (message.kind === 'ruled') return void current.results.push(message.result);
    if (message.kind === 'rule') {
      current.rule = message.index;
      this.arm(`the rule did not finish within ${this.bounds.ruleMs / 1000} s`);
      return;
    }
    clearTimeout(this.timer);
    this.current = undefined;
    current.job.resolve(message);
    this.pump();
  }

  private arm(bound: string): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.restart(bound), this.bounds.ruleMs).unref();
  }

  /** Ends the thread (`worker`: only if it is still the current one), answers the running job with `reason`, and starts again for the rest. */
  private restart(reason: string, worker: Worker | undefined = this.worker): void {
    if (!worker || worker !== this.worker) return;
    this.worker = undefined;
    clearTimeout(this.timer);
    void worker.terminate();
    this.fail(reason);
    this.pump();
  }

  /** Answers the running job: the rules that ran keep their results, the one running fails with `reason`, the rest did not run. */
  private fail(reason: string): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    const { message } = current.job;
    // All rules at once hit a bound: they run again one at a time, to tell which one did.
    if (current.rule === together && message.kind === 'judge') return void this.waiting.unshift({ ...current.job, message: { ...message, each: true } });
    if (current.rule < 0) {
      current.job.resolve({ kind: 'failed', id: current.id, message: reason });
      return;
    }
    if (message.kind === 'check') {
      current.job.resolve({ kind: 'checked', id: current.id, problems: [`rule ${current.rule + 1}: ${reason}`] });
      return;
    }
    const rules = message.rules.map(
      (_, i): RuleResult =>
        current.results[i] ?? { passed: false, output: null, error: i === current.rule ? reason : 'not run: an earlier rule reached a bound' },
    );
    current.job.resolve({ kind: 'judged', id: current.id, schemaErrors: current.schemaErrors, rules });
  }
}

/**
 * Judges on `size` threads, each job given to the one holding the fewest: jq's runs are CPU-bound,
 * so one thread held custom attestations to one core, and a rule running to its bound held every
 * other custom attestation behind it. Each thread starts with the first job it is given.
 */
export class JudgePool {
  private readonly judges: Judge[];

  constructor(size: number, bounds: JudgeBounds = judgeBounds) {
    this.judges = Array.from({ length: Math.max(1, size) }, () => new Judge(bounds));
  }

  judge(schema: string | null, rules: string[], data: string): Promise<Judgement> {
    return this.leastBusy().judge(schema, rules, data);
  }

  check(schema: string | null, rules: string[]): Promise<string[]> {
    return this.leastBusy().check(schema, rules);
  }

  async close(): Promise<void> {
    await Promise.all(this.judges.map((judge) => judge.close()));
  }

  private leastBusy(): Judge {
    return this.judges.reduce((best, judge) => (judge.jobs < best.jobs ? judge : best));
  }
}

/** The server's judges: a thread a core, at most four (each may hold jq's 256 MiB and its own heap). */
export const customTypeJudge = new JudgePool(Math.min(4, availableParallelism()));
