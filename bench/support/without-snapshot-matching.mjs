/**
 * Imported with `node --import` (NODE_OPTIONS): the server as built, but with a report's matching
 * of running artifacts to reported artifacts and attestations (domain/running.js
 * `fingerprintEvidence`) answering "no match" without a query. The baseline of the matching's
 * cost, with nothing changed in the product: snapshots.ts checks that its deployments have no trail.
 */
import { register } from 'node:module';

register('./without-snapshot-matching-hooks.mjs', import.meta.url);
