/**
 * The read path's baseline: a bare Koa handler that runs the server's SQL for the deployment and
 * environment lists of the organisation `bench` (count and page, see read-sql.ts) and answers
 * the page as the server's JSON body (the same envelope, items and links; read-path.ts checks
 * that they are equal). No router, auth, validation, query builder, reader threads or logging.
 *
 *   node --import tsx bench/support/baseline-read.ts sqlite FILE        (better-sqlite3)
 *   node --import tsx bench/support/baseline-read.ts postgres URL       (pg, a pool of 10 like the server's)
 *
 * Prints {"msg":"listening","url":...}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BetterSqlite3 } from '@trailproof/server/testing';
import Koa from 'koa';
import pg from 'pg';
import {
  deepPageCut,
  deploymentCount,
  deploymentFilter,
  deploymentItem,
  deploymentPage,
  environmentItem,
  environmentStatements,
  numbered,
  pageEnvelope,
  type Statement,
} from './read-sql.ts';

type Row = Record<string, unknown>;
interface Runner {
  all(s: Statement): Promise<Row[]>;
}

const [kind, location] = process.argv.slice(2);
let runner: Runner;
if (kind === 'sqlite' && location) {
  const db = new BetterSqlite3(location);
  db.pragma('busy_timeout = 5000');
  const prepared = new Map<string, BetterSqlite3.Statement>();
  const prepare = (sql: string) => prepared.get(sql) ?? prepared.set(sql, db.prepare(sql)).get(sql)!;
  runner = { all: async (s) => prepare(s.sql).all(...s.params) as Row[] };
} else if (kind === 'postgres' && location) {
  const pool = new pg.Pool({ connectionString: location, max: 10 });
  runner = { all: async (s) => (await pool.query(numbered(s).sql, numbered(s).params)).rows as Row[] };
} else {
  throw new Error('usage: baseline-read.ts sqlite FILE | postgres URL');
}

const [org] = await runner.all({ sql: `select "id" from "organizations" where "name" = ?`, params: ['bench'] });
if (!org) throw new Error('no organisation "bench" in the database');
const orgId = Number(org.id);

const app = new Koa();
app.use(async (ctx) => {
  const q = new URLSearchParams(ctx.querystring);
  if (ctx.path.includes('/deployments/')) {
    const f = deploymentFilter(q, Date.now() / 1000);
    // Count and page at once, as the server runs them.
    const page = async () => {
      // A deep page first skips whole days by their counts, as the server's does.
      const cut = await deepPageCut(orgId, f, (s) => runner.all(s));
      return runner.all(deploymentPage(orgId, cut, cut.endExclusive));
    };
    const [counted, rows] = await Promise.all([runner.all(deploymentCount(orgId, f)), f.limit > 0 ? page() : []]);
    const total = Number(counted[0]?.n ?? 0);
    ctx.body = pageEnvelope(
      ctx.path,
      ctx.search,
      f.offset / Math.max(f.limit, 1) + 1,
      f.limit,
      total,
      'deployments',
      rows.map((r) => deploymentItem('bench', r)),
    );
  } else {
    const { count, page } = environmentStatements(orgId, q, kind === 'sqlite' ? 'sqlite' : 'postgres');
    const total = Number((await runner.all(count))[0]!.total);
    const rows = await runner.all(page);
    const perPage = Number(q.get('per_page') ?? 20);
    ctx.body = pageEnvelope(
      ctx.path,
      ctx.search,
      Number(q.get('page') ?? 1),
      perPage,
      total,
      'environments',
      rows.map((r) => environmentItem('bench', r)),
    );
  }
});

const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
