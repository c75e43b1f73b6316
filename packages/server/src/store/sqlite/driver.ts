/**
 * better-sqlite3, the line that runs on this Node. 13 (Node-API, prebuilt binaries, installed as
 * `better-sqlite3-napi`) on Node 22 and later: 12 aborts on Node 24 when V8 collects a statement
 * (WiseLibs/better-sqlite3#1515). 12 on Node 20, where 13 crashes when loaded. Every module that
 * opens SQLite takes the driver from here, worker threads included; see docs/node-versions.md.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Types from 'better-sqlite3';

/** The package the driver came from: `module` is the path a worker thread can `require`. */
export interface SqliteDriver {
  module: string;
  version: string;
}

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

function load(name: string): { driver: SqliteDriver; constructor: typeof Types } {
  const module = require.resolve(name);
  const constructor = require(module) as typeof Types;
  const { version } = require(`${dirname(dirname(module))}/package.json`) as { version: string };
  return { driver: { module, version }, constructor };
}

function pick(): ReturnType<typeof load> {
  if (nodeMajor < 22) return load('better-sqlite3');
  try {
    return load('better-sqlite3-napi');
  } catch (error) {
    // 12 works on Node 22 and 23; on 24 it may abort the process later, so say so now.
    if (nodeMajor >= 24) {
      process.emitWarning(
        `better-sqlite3 13 (better-sqlite3-napi) did not load (${(error as Error).message}); falling back to better-sqlite3 12, which can abort on Node ${process.versions.node} (docs/node-versions.md)`,
      );
    }
    return load('better-sqlite3');
  }
}

const picked = pick();

/** Which better-sqlite3 this process opens SQLite with. */
export const sqliteDriver: SqliteDriver = picked.driver;

const BetterSqlite3: typeof Types = picked.constructor;
// The types of both lines are @types/better-sqlite3's: the same API.
// eslint-disable-next-line @typescript-eslint/no-namespace
declare namespace BetterSqlite3 {
  type Database = Types.Database;
  type Statement<Params extends unknown[] | object = unknown[], Result = unknown> = Types.Statement<Params, Result>;
  type Options = Types.Options;
}
export default BetterSqlite3;
