/**
 * The start-up benchmark's baseline: a bare Koa app answering `GET /livez`, plain JavaScript run
 * by plain node (as the built server is), so that both sides pay the same launch.
 *
 *   node bench/support/baseline-startup.mjs --port N
 */
import Koa from 'koa';

const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const app = new Koa();
app.use((ctx) => {
  ctx.type = 'application/json';
  ctx.body = '{"status":"ok"}';
});
const server = app.listen(port, '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
