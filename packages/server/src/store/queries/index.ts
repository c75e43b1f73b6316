/**
 * Every query of the store, gathered from the modules beside this one. Each module says which of
 * its queries only read (`reads`) and which write (`writes`), next to their SQL: the store runs
 * the reads outside transactions on a read connection (SQLite), so that they never queue behind a
 * write batch (see store/registry.ts). A new query goes into its resource's module and into that
 * module's `reads` or `writes`; a new module is added to both lists below.
 */
import * as allowlists from './allowlists.ts';
import * as approvals from './approvals.ts';
import * as artifactMatches from './artifact-matches.ts';
import * as artifactReads from './artifact-reads.ts';
import * as artifactApprovals from './artifact-approvals.ts';
import * as artifacts from './artifacts.ts';
import * as attestations from './attestations.ts';
import * as attestationFacts from './attestation-facts.ts';
import * as attestationTypes from './attestation-types.ts';
import * as attestationReads from './attestation-reads.ts';
import * as audit from './audit.ts';
import * as badges from './badges.ts';
import * as blobs from './blobs.ts';
import * as chainVerify from './chain-verify.ts';
import * as consoleSessions from './console-sessions.ts';
import * as consoleIdentitySessions from './console-identity-sessions.ts';
import * as controls from './controls.ts';
import * as deploymentDays from './deployment-days.ts';
import * as deployments from './deployments.ts';
import * as environmentEvents from './environment-events.ts';
import * as environmentList from './environment-list.ts';
import * as environmentStatus from './environment-status.ts';
import * as environments from './environments.ts';
import * as evidenceTrails from './evidence-trails.ts';
import * as flows from './flows.ts';
import * as health from './health.ts';
import * as junitFailedCases from './junit-failed-cases.ts';
import * as log from './log.ts';
import * as logCheckpoints from './log-checkpoints.ts';
import * as logEvidence from './log-evidence.ts';
import * as logVerify from './log-verify.ts';
import * as organizations from './organizations.ts';
import * as policies from './policies.ts';
import * as policyFacts from './policy-facts.ts';
import * as verdicts from './verdicts.ts';
import * as provenance from './provenance.ts';
import * as snapshots from './snapshots.ts';
import * as tags from './tags.ts';
import * as tokens from './tokens.ts';
import * as trails from './trails.ts';
import * as trailTemplates from './trail-templates.ts';
import * as trailViews from './trail-views.ts';
import * as transactions from '../transactions.ts';

/** Queries that only read. */
export const readQueries = {
  ...organizations.reads,
  ...artifactMatches.reads,
  ...blobs.reads,
  ...tokens.reads,
  ...flows.reads,
  ...trails.reads,
  ...attestations.reads,
  ...artifacts.reads,
  ...attestationFacts.reads,
  ...environments.reads,
  ...environmentList.reads,
  ...snapshots.reads,
  ...deployments.reads,
  ...environmentEvents.reads,
  ...approvals.reads,
  ...chainVerify.reads,
  ...audit.reads,
  ...health.reads,
  ...provenance.reads,
  ...consoleSessions.reads,
  ...consoleIdentitySessions.reads,
  ...badges.reads,
  ...deploymentDays.reads,
  ...artifactApprovals.reads,
  ...trailTemplates.reads,
  ...artifactReads.reads,
  ...log.reads,
  ...logCheckpoints.reads,
  ...logEvidence.reads,
  ...logVerify.reads,
  ...junitFailedCases.reads,
  ...attestationTypes.reads,
  ...attestationReads.reads,
  ...policies.reads,
  ...policyFacts.reads,
  ...verdicts.reads,
  ...allowlists.reads,
  ...controls.reads,
  ...trailViews.reads,
  ...environmentStatus.reads,
};

/** Queries that write (and those that must run in the caller's transaction, such as row locks). */
export const writeQueries = {
  ...organizations.writes,
  ...audit.writes,
  ...blobs.writes,
  ...tokens.writes,
  ...flows.writes,
  ...trails.writes,
  ...evidenceTrails.writes,
  ...attestations.writes,
  ...artifacts.writes,
  ...environments.writes,
  ...snapshots.writes,
  ...deployments.writes,
  ...environmentEvents.writes,
  ...approvals.writes,
  ...artifactMatches.writes,
  ...transactions.writes,
  ...consoleSessions.writes,
  ...consoleIdentitySessions.writes,
  ...badges.writes,
  ...log.writes,
  ...logCheckpoints.writes,
  ...logEvidence.writes,
  ...logVerify.writes,
  ...junitFailedCases.writes,
  ...attestationTypes.writes,
  ...policies.writes,
  ...policyFacts.writes,
  ...verdicts.writes,
  ...allowlists.writes,
  ...controls.writes,
  ...tags.writes,
};

// A name in both would run in one mode or the other depending on spread order: refused at compile time.
const noQueryBothReadsAndWrites: [keyof typeof readQueries & keyof typeof writeQueries] extends [never] ? true : never = true;
void noQueryBothReadsAndWrites;

export type ReadQueries = typeof readQueries;
export type WriteQueries = typeof writeQueries;
