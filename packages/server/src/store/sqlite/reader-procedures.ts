/**
 * The queries that SQLite's reader threads run (reader-threads.ts): the lists, whose cost grows
 * with the rows they scan and count (a trail's attestations, and the compliance facts and JUnit
 * totals of a page of trails, included), the per-day counts the deployments page reads
 * beside its list, and an artifact read's rows with what it adds to them (its trails' compliance
 * facts, log indexes and environments' events: several statements, one message), and what an
 * assert reads before it judges (`assertReads`, the same). Point lookups (a token, an organisation, a trail) stay on the event loop's
 * own read connection, where they cost less than a message to another thread.
 */
import { listApprovals } from '../queries/approvals.ts';
import { deploymentsPerDay } from '../queries/deployment-days.ts';
import { listDeployments } from '../queries/deployments.ts';
import { listEnvironments } from '../queries/environment-list.ts';
import { attestationFactsOfTrails, complianceFactsOfTrails, junitResultsOf } from '../queries/attestation-facts.ts';
import { listAttestations } from '../queries/attestations.ts';
import { artifactReadFacts, flowArtifactsWithFacts, searchWithFacts } from '../queries/artifact-reads.ts';
import { assertReads } from '../queries/policy-facts.ts';

export const readerProcedures = {
  listDeployments,
  deploymentsPerDay,
  listEnvironments,
  listApprovals,
  listAttestations,
  attestationFactsOfTrails,
  complianceFactsOfTrails,
  junitResultsOf,
  artifactReadFacts,
  flowArtifactsWithFacts,
  searchWithFacts,
  assertReads,
};

export type ReaderProcedures = typeof readerProcedures;
