/**
 * The proofs' framework floor: the answers of floor-proofs.ts (proof-answers.ts) behind Koa and
 * @koa/router, the server's framework, with nothing of the server's own: no token, validation,
 * metrics, request log, error rendering or headers. Between the bare floor and the server, it
 * says how much of a proof request's cost is the framework and how much the server's path.
 *
 *   node --import tsx bench/support/floor-proofs-koa.ts FILE
 *
 * Prints {"msg":"listening","url":...}.
 */
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { announce, openProofAnswers } from './proof-answers.ts';

const answers = openProofAnswers(process.argv[2]!);
const router = new Router({ prefix: '/api/v2' });
router.get('/log/:org/proof/inclusion', async (ctx) => {
  ctx.type = 'application/json';
  ctx.body = await answers.inclusion(Number(ctx.query.index), Number(ctx.query.tree_size));
});
router.get('/log/:org/proof/consistency', async (ctx) => {
  ctx.type = 'application/json';
  ctx.body = await answers.consistency(Number(ctx.query.from), Number(ctx.query.to));
});
const app = new Koa();
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
process.once('SIGTERM', () => server.close(() => answers.close()));
