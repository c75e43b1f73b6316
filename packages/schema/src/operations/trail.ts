/** The trail as read back: its evidence (attestations) and its compliance status with reasons. */
import { Type, type Static } from '@sinclair/typebox';
import { CreatedBy, EpochSeconds, ExternalUrls, GitCommitInfo, JsonObject, JunitResult, PageLinks, RepoInfo, UserData } from '../shared.ts';
import { Template, TemplateArtifact, TemplateAttestation } from './flow.ts';
import { LogIndex, logIndex } from './log.ts';

const Link = Type.Object({ href: Type.String() }, { additionalProperties: false });
const OrNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** How one required (or unexpected) attestation fares. */
export const AttestationStatus = Type.Object(
  {
    attestation_name: Type.String(),
    attestation_type: OrNull(Type.String()),
    attestation_id: OrNull(Type.String({ description: 'The attestation that counts (the latest of that name); null when missing' })),
    status: Type.Union([Type.Literal('MISSING'), Type.Literal('COMPLETE')]),
    is_compliant: Type.Boolean(),
    unexpected: Type.Boolean({ description: 'true when the template does not ask for this attestation' }),
    reason: OrNull(Type.String({ description: 'Why it does not comply; null when it does' })),
  },
  { $id: 'AttestationStatus', additionalProperties: false },
);

const complianceState = Type.Union([Type.Literal('COMPLIANT'), Type.Literal('NON-COMPLIANT')]);

/** An artifact's state as Kosli shows it: INCOMPLETE while an attestation it needs is missing (and none fails). */
export const ArtifactState = Type.Union([Type.Literal('COMPLIANT'), Type.Literal('NON-COMPLIANT'), Type.Literal('INCOMPLETE')]);

/** A trail's entry for one template name: MISSING while no artifact is reported under it (a failing attestation still makes it NON-COMPLIANT). */
export const ArtifactEntryState = Type.Union([Type.Literal('COMPLIANT'), Type.Literal('NON-COMPLIANT'), Type.Literal('INCOMPLETE'), Type.Literal('MISSING')]);

export const ArtifactStatus = Type.Object(
  {
    artifact_fingerprint: OrNull(
      Type.String({ description: 'The latest artifact reported under this name; else the fingerprint its latest attestation carries' }),
    ),
    artifact_id: OrNull(Type.String({ description: 'The reported artifact; null while none is reported under this name' })),
    status: ArtifactEntryState,
    is_compliant: Type.Boolean(),
    unexpected: Type.Boolean({ description: 'true when the template does not name this artifact' }),
    attestations_statuses: Type.Array(Type.Ref(AttestationStatus)),
    evaluated_at: EpochSeconds(),
    flow_template_id: OrNull(Type.String()),
  },
  { $id: 'ArtifactStatus', additionalProperties: false },
);

export const TrailComplianceStatus = Type.Object(
  {
    status: complianceState,
    is_compliant: Type.Boolean(),
    reasons: Type.Array(Type.String(), { description: 'One line per problem; empty when compliant' }),
    attestations_statuses: Type.Array(Type.Ref(AttestationStatus), { description: 'Trail-level attestations' }),
    artifacts_statuses: Type.Record(Type.String(), Type.Ref(ArtifactStatus), { description: 'By template artifact name' }),
    evaluated_at: EpochSeconds(),
    flow_template_id: OrNull(Type.String({ description: 'SHA-256 of the template evaluated against; null without one' })),
  },
  { $id: 'TrailComplianceStatus', additionalProperties: false },
);

export const JunitTotals = Type.Object(
  {
    suites: Type.Integer({ minimum: 0 }),
    total: Type.Integer({ minimum: 0 }),
    failures: Type.Integer({ minimum: 0 }),
    errors: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0 }),
    duration: Type.Number({ minimum: 0 }),
  },
  { $id: 'JunitTotals', additionalProperties: false },
);

export const Attachment = Type.Object(
  {
    name: Type.String(),
    sha256: Type.String({ pattern: '^[a-f0-9]{64}$' }),
    size: Type.Integer({ minimum: 0 }),
    _links: Type.Object({ download: Link }, { additionalProperties: false }),
  },
  { $id: 'Attachment', additionalProperties: false },
);

/** One stored attestation, superseded or not. */
export const AttestationView = Type.Object(
  {
    attestation_id: Type.String(),
    attestation_name: Type.String(),
    attestation_type: Type.String(),
    is_compliant: Type.Boolean(),
    is_latest: Type.Boolean({ description: 'false when a later attestation of the same name (and target) supersedes it' }),
    created_at: EpochSeconds(),
    created_by: CreatedBy,
    log_index: LogIndex,
    artifact_fingerprint: OrNull(Type.String()),
    target_artifacts: Type.Array(Type.String()),
    description: OrNull(Type.String()),
    origin_url: OrNull(Type.String()),
    git_commit_info: OrNull(Type.Ref(GitCommitInfo)),
    repo_info: OrNull(Type.Ref(RepoInfo)),
    external_urls: OrNull(Type.Ref(ExternalUrls)),
    annotations: OrNull(JsonObject('Annotations')),
    user_data: OrNull(Type.Ref(UserData)),
    junit_results: OrNull(Type.Array(Type.Ref(JunitResult), { description: 'JUnit attestations only' })),
    totals: OrNull(Type.Ref(JunitTotals)),
    attachment: OrNull(Type.Ref(Attachment)),
  },
  { $id: 'AttestationView', additionalProperties: false },
);

const trailFields = {
  name: Type.String(),
  description: Type.String(),
  flow: Type.Object({ name: Type.String() }, { additionalProperties: false }),
  git_commit_info: OrNull(Type.Ref(GitCommitInfo)),
  repo_info: OrNull(Type.Ref(RepoInfo)),
  origin_url: OrNull(Type.String()),
  external_urls: OrNull(Type.Ref(ExternalUrls)),
  user_data: OrNull(Type.Ref(UserData)),
  created_at: EpochSeconds(),
  created_by: CreatedBy,
  last_modified_at: EpochSeconds(),
  template: OrNull(Type.Ref(Template)),
  compliance_state: complianceState,
  is_compliant: Type.Boolean(),
  compliance_status: Type.Ref(TrailComplianceStatus),
  _links: Type.Object({ self: Link, flow: Link }, { additionalProperties: false }),
};

/** A trail in the list: everything but its attestations. */
export const TrailSummary = Type.Object(trailFields, { $id: 'TrailSummary', additionalProperties: false });

/** Where a page of a trail's attestations sits among all of them, and the links to the others. */
export const AttestationsPagination = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'Attestations stored on the trail' }),
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1 }),
    page_count: Type.Integer({ minimum: 0 }),
    offset: Type.Integer({ minimum: 0, description: 'Where this page starts among the attestations (0: the oldest)' }),
    next_offset: OrNull(
      Type.Integer({
        minimum: 1,
        description:
          'Where the next page starts (`offset=`); null after the last. A page stops early when its data would pass 4 MiB, and `_links.next` then continues from here',
      }),
    ),
    _links: Type.Ref(PageLinks),
  },
  { $id: 'AttestationsPagination', additionalProperties: false },
);

const eventType = Type.Union(
  [
    'trail_reported',
    'trail_attestation_reported',
    'trail_attestation_for_artifact_reported',
    'artifact_creation_reported',
    'artifact_attestation_reported',
  ].map((t) => Type.Literal(t)),
);

/** What happened on the trail, as Kosli's `events` tell it (`kosli get trail` prints them): the fields of each type, as its printer reads them. */
export const TrailEvent = Type.Object(
  {
    type: eventType,
    timestamp: EpochSeconds(),
    git_commit_info: OrNull(Type.Ref(GitCommitInfo)),
    attestation_type: Type.Optional(Type.String()),
    attestation_id: Type.Optional(Type.String()),
    is_compliant: Type.Optional(Type.Boolean()),
    template_reference_name: Type.Optional(Type.String({ description: "The attestation's name; an artifact's template name" })),
    target_artifact: Type.Optional(Type.String({ description: 'The template artifact an attestation is for' })),
    artifact_fingerprint: Type.Optional(Type.String()),
    artifact_name: Type.Optional(Type.String({ description: "The artifact's file or image name (`filename`)" })),
    artifact_id: Type.Optional(Type.String()),
    git_commit: Type.Optional(Type.String()),
  },
  { $id: 'TrailEvent', additionalProperties: false },
);

/** One trail with a page of the attestations stored on it, oldest first. */
export const Trail = Type.Object(
  {
    ...trailFields,
    events: Type.Array(Type.Ref(TrailEvent), { description: 'Oldest first; the newest 1,000 when there are more (`events_total`)' }),
    events_total: Type.Integer({ minimum: 0 }),
    log_index: logIndex("The leaf of the trail's latest begin in the organisation's transparency log"),
    attestations: Type.Array(Type.Ref(AttestationView)),
    attestations_pagination: Type.Ref(AttestationsPagination),
  },
  { $id: 'Trail', additionalProperties: false },
);

/** Schemas the trail operations register. */
export const trailSchemas = [
  TemplateAttestation,
  TemplateArtifact,
  Template,
  AttestationStatus,
  ArtifactStatus,
  TrailComplianceStatus,
  JunitTotals,
  Attachment,
  AttestationView,
  TrailSummary,
  AttestationsPagination,
  TrailEvent,
  Trail,
];

export type TrailSummaryBody = Static<typeof TrailSummary>;
export type AttestationViewBody = Static<typeof AttestationView>;
export type TrailEventBody = Static<typeof TrailEvent>;
