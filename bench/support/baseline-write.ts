/**
 * The write path's baseline: a bare Koa handler that parses the same multipart body as the
 * server's JUnit attestation (multipart.ts), parses its `data_json`, and answers 201 without
 * storing anything. No router, auth, validation, hash chain, transaction or logging.
 *
 *   node --import tsx bench/support/baseline-write.ts     prints {"msg":"listening","url":...}
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { created, parseAttestation } from './multipart.ts';

const app = new Koa();
app.use(async (ctx) => {
  const { name } = await parseAttestation(ctx);
  created(ctx, name);
});

const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
