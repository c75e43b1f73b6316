/**
 * Metrics of a `serve --workers` pool. A scrape reaches one worker (whichever the connection
 * went to), so each worker answers `/metrics` with the pool's metrics: it asks the primary, which
 * collects every worker's registry and adds them up (prom-client's AggregatorRegistry: counters
 * and histograms summed, process gauges each by their own rule). Outside a pool, nothing here runs.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const askPool = 'trailproof:pool-metrics';
const poolAnswer = 'trailproof:pool-metrics-answer';

/** How long a worker waits for the pool's metrics before the scrape fails. */
const answerTimeoutMs = 5000;

interface Answer {
  type: typeof poolAnswer;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers the workers' requests for the pool's metrics. */
export function answerPoolMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: number } | null) => {
    if (message?.type !== askPool) return;
    const reply = (answer: Omit<Answer, 'type' | 'id'>) => worker.isConnected() && worker.send({ type: poolAnswer, id: message.id, ...answer });
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: (error as Error).message }),
    );
  });
}

/**
 * In a worker: `registry` joins the pool's metrics, and the returned function gives the pool's
 * metrics text (from the primary); null when this process is not a pool's worker.
 */
export function poolMetrics(registry: Registry): (() => Promise<string>) | null {
  if (!cluster.isWorker) return null;
  AggregatorRegistry.setRegistries([registry]);
  // Constructed for its effect: a worker's AggregatorRegistry answers the primary's collection requests.
  new AggregatorRegistry();
  const waiting = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();
  let next = 0;
  process.on('message', (message: Answer | null) => {
    if (message?.type !== poolAnswer) return;
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error !== undefined) pending?.reject(new Error(`the pool's metrics: ${message.error}`));
    else pending?.resolve(message.text ?? '');
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the pool's metrics: no answer from the primary in ${answerTimeoutMs} ms`));
      }, answerTimeoutMs);
      const settle = { resolve: (text: string) => (clearTimeout(timer), resolve(text)), reject: (error: Error) => (clearTimeout(timer), reject(error)) };
      waiting.set(id, settle);
      process.send!({ type: askPool, id });
    });
}
