/**
 * The write path's baseline: a bare Koa handler that parses the same multipart body as the
 * server's JUnit attestation (@koa/multer, memory storage, the same busboy limits), parses its
 * `data_json`, and answers 201 without storing anything. No router, auth, validation, hash
 * chain, transaction or logging.
 *
 *   node --import tsx bench/support/baseline-write.ts     prints {"msg":"listening","url":...}
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import multer from '@koa/multer';
import Koa from 'koa';
import { limits } from '@trailproof/schema';

const upload = multer({
  storage: multer.memoryStorage(),
  defParamCharset: 'utf8',
  limits: {
    fileSize: 10 * 1024 * 1024, files: 2, fields: 4, parts: 6, fieldSize: limits.dataJsonBytes,
    fieldNameSize: 100, headerPairs: 50, fieldNestingDepth: 0, fieldArrayIndexLimit: 0,
  },
}).fields([{ name: 'data_json', maxCount: 1 }, { name: 'attachment_file', maxCount: 1 }]);

const app = new Koa();
app.use(async (ctx) => {
  await upload(ctx, async () => {});
  const data = JSON.parse((ctx.request as unknown as { body: { data_json: string } }).body.data_json) as { attestation_name: string };
  ctx.status = 201;
  ctx.body = JSON.stringify(`junit attestation '${data.attestation_name}' was added to trail 't1'`);
  ctx.type = 'application/json';
});

const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
