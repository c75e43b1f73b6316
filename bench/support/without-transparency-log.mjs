/**
 * Imported with `node --import` (NODE_OPTIONS): the server as built, but with the transparency
 * log's append (store/queries/log.js `appendLeaves`) a no-op, in every thread (Node runs
 * `--import` in workers too). The baseline of the log's write cost, with nothing changed in the
 * product: transparency-log.ts checks afterwards that the baseline's database holds no leaves.
 */
import { register } from 'node:module';

register('./without-transparency-log-hooks.mjs', import.meta.url);
