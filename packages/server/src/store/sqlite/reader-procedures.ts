/**
 * The queries that SQLite's reader threads run (reader-threads.ts): the lists, whose cost grows
 * with the rows they scan and count (a trail's attestations, and the compliance facts of a page
 * of trails, included; the deployments page's counts per day beside its list). Point lookups (a token, an organisation, a trail) stay on the event
 * loop's own read connection, where they cost less than a message to another thread.
 */
import { listApprovals } from '../queries/approvals.ts';
import { deploymentsPerDay } from '../queries/deployment-days.ts';
import { listDeployments } from '../queries/deployments.ts';
import { listEnvironments } from '../queries/environments.ts';
import { attestationFactsOfTrails, listAttestations } from '../queries/attestations.ts';

export const readerProcedures = { listDeployments, deploymentsPerDay, listEnvironments, listApprovals, listAttestations, attestationFactsOfTrails };

export type ReaderProcedures = typeof readerProcedures;
