/**
 * The built packages, as they run in production: `pnpm build` (tsc -b) once per test process, and
 * an environment for their processes without the `source` condition the tests run under
 * (test/support/sources.cjs), so that node loads dist/ and nothing else (both in processes.ts,
 * which starts every `trailproof` child that way).
 */
import type { ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { expect } from 'chai';
import { call } from './processes.ts';

export { buildPackages, builtEnv, repositoryRoot } from './processes.ts';

/** The URL of a `trailproof serve` child once it logged "listening"; rejects if it exits first. */
export function listeningUrl(child: ChildProcessByStdio<null, Readable, Readable>, exited: Promise<unknown>): Promise<string> {
  let stderr = '';
  // The first 10,000 characters, enough to say why it stopped (a debug log may follow).
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 10_000) stderr += chunk;
  });
  return new Promise<string>((resolve, reject) => {
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'listening' && entry.url) resolve(entry.url);
    });
  });
}

/** Begins trail t1 of flow app in acme, attests JUnit results to it and reads them back: what a pipeline's first run does. */
export async function beginTrailAndAttest(url: string, token: string): Promise<void> {
  const form = (value: unknown) => {
    const body = new FormData();
    body.append('data_json', JSON.stringify(value));
    return body;
  };
  expect(await call(url, token, 'PUT', '/api/v2/trails/acme/app', { form: form({ name: 't1' }) })).to.deep.include({
    status: 201,
    body: "Trail 't1' was begun in flow 'app'",
  });
  const attested = await call(url, token, 'POST', '/api/v2/attestations/acme/app/trail/t1/junit', {
    form: form({ attestation_name: 'unit', junit_results: [{ name: 's', failures: 0, errors: 0, skipped: 0, total: 1, duration: 0.1 }] }),
  });
  expect(attested).to.deep.include({ status: 201, body: "junit attestation 'unit' was added to trail 't1'" });
  const trail = await call(url, token, 'GET', '/api/v2/trails/acme/app/t1');
  expect(trail.body.compliance_status.attestations_statuses.map((a: { attestation_name: string }) => a.attestation_name)).to.deep.equal(['unit']);
}
