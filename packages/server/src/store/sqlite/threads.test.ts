/**
 * Messages to and from the store's worker threads (threads.ts): the jobs of one turn of the event
 * loop cross as one message, and each is answered with its own result.
 */
import { Worker } from 'node:worker_threads';
import { expect } from 'chai';
import { batchedPost, unbatched, workerJobs } from './threads.ts';

describe('worker thread messages', () => {
  it('posts the messages of one turn as one, in order, and those of later turns apart', async () => {
    const posted: unknown[] = [];
    const outbox = batchedPost((message) => posted.push(message));
    outbox.post('a');
    outbox.post('b');
    outbox.post('c');
    expect(posted).to.deep.equal([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(posted).to.deep.equal([{ kind: 'batch', messages: ['a', 'b', 'c'] }]);
    outbox.post('d');
    await new Promise((resolve) => setImmediate(resolve));
    expect(posted.at(-1)).to.equal('d');
    outbox.post('e');
    outbox.flush();
    expect(posted.at(-1)).to.equal('e');
    expect(posted.flatMap((message) => unbatched(message))).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
  });

  it('answers each job of a batch with its own result, the batch reaching the worker as one message', async () => {
    // Answers every job of a message with twice its number, in reverse order, and counts the messages.
    const worker = new Worker(
      `
      const { parentPort } = require('node:worker_threads');
      let received = 0;
      parentPort.on('message', (message) => {
        received++;
        const jobs = message.kind === 'batch' ? message.messages : [message];
        for (const job of [...jobs].reverse()) {
          if (job.kind === 'count') parentPort.postMessage({ kind: 'done', id: job.id, value: received });
          else parentPort.postMessage({ kind: 'done', id: job.id, value: job.n * 2 });
        }
      });
    `,
      { eval: true },
    );
    try {
      const jobs = workerJobs(worker, { batched: true });
      worker.on('message', (message) => jobs.answer(message));
      const results = await Promise.all(Array.from({ length: 50 }, (_, n) => jobs.send<number>((id) => ({ kind: 'double', id, n }))));
      expect(results).to.deep.equal(Array.from({ length: 50 }, (_, n) => n * 2));
      // The 50 jobs were one message; this one, sent in a later turn, is the second.
      expect(await jobs.send<number>((id) => ({ kind: 'count', id }))).to.equal(2);
      expect(jobs.size).to.equal(0);
    } finally {
      await worker.terminate();
    }
  });

  it('moves the buffers of the jobs of a batch to the worker with the batch', async () => {
    // Answers each job with the sum of its bytes and how many messages have arrived so far.
    const worker = new Worker(
      `
      const { parentPort } = require('node:worker_threads');
      let received = 0;
      parentPort.on('message', (message) => {
        received++;
        for (const job of message.kind === 'batch' ? message.messages : [message]) {
          parentPort.postMessage({ kind: 'done', id: job.id, value: { sum: job.bytes.reduce((a, b) => a + b, 0), received } });
        }
      });
    `,
      { eval: true },
    );
    try {
      const jobs = workerJobs(worker, { batched: true });
      worker.on('message', (message) => jobs.answer(message));
      const sent = Array.from({ length: 10 }, (_, n) => new Uint8Array(1_000).fill(n));
      const answers = await Promise.all(sent.map((bytes) => jobs.send<{ sum: number; received: number }>((id) => ({ id, bytes }), [bytes.buffer])));
      expect(answers).to.deep.equal(sent.map((_, n) => ({ sum: n * 1_000, received: 1 })));
      // Moved, not copied: the sender's buffers are empty now.
      expect(sent.map((bytes) => bytes.byteLength)).to.deep.equal(Array(10).fill(0));
    } finally {
      await worker.terminate();
    }
  });

  it('fails the jobs of a batch that cannot be posted, and goes on with later ones', async () => {
    const worker = new Worker(
      `
      const { parentPort } = require('node:worker_threads');
      parentPort.on('message', (message) => {
        for (const job of message.kind === 'batch' ? message.messages : [message]) parentPort.postMessage({ kind: 'done', id: job.id, value: job.n });
      });
    `,
      { eval: true },
    );
    try {
      const jobs = workerJobs(worker, { batched: true });
      worker.on('message', (message) => jobs.answer(message));
      // A function cannot be cloned: the batch it is in fails, both of its jobs.
      const outcomes = await Promise.allSettled([jobs.send<number>((id) => ({ id, n: 1 })), jobs.send<number>((id) => ({ id, n: 2, callback: () => {} }))]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
      expect(String((outcomes[1] as PromiseRejectedResult).reason)).to.match(/could not be cloned/);
      expect(jobs.size).to.equal(0);
      expect(await jobs.send<number>((id) => ({ id, n: 3 }))).to.equal(3);
    } finally {
      await worker.terminate();
    }
  });

  it('after failAll, fails later jobs at once and ignores late answers, so none settles a job that reused an id', async () => {
    // Answers nothing by itself: the test answers for it.
    const worker = new Worker(`require('node:worker_threads').parentPort.on('message', () => {});`, { eval: true });
    const failure = (job: Promise<unknown>) =>
      job.then(
        () => 'settled',
        (error: Error) => error.message,
      );
    try {
      const jobs = workerJobs(worker, { batched: true });
      const ids: number[] = [];
      const first = jobs.send<number>((id) => ids.push(id) && { id });
      jobs.answer({ kind: 'done', id: ids[0]!, value: 1 });
      expect(await first).to.equal(1);
      const second = jobs.send<number>((id) => ids.push(id) && { id });
      expect(ids[1]).to.equal(ids[0]);
      jobs.failAll(new Error('the worker stopped'));
      expect(await failure(second)).to.equal('the worker stopped');
      // The worker's answer to the second job, arriving late, settles nothing; a job sent now fails at once.
      const third = jobs.send<number>((id) => ids.push(id) && { id });
      jobs.answer({ kind: 'done', id: ids[0]!, value: 2 });
      expect(await failure(third)).to.equal('the worker stopped');
      expect([ids.length, jobs.size]).to.deep.equal([2, 0]);
    } finally {
      await worker.terminate();
    }
  });
});
