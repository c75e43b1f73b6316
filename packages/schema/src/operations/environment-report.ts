/**
 * Snapshot reports: PUT /environments/{org}/{env_name}/report/{type}, one operation per runtime
 * type. The eight differ only in the shape of a running artifact, so they are built here by one
 * function rather than in eight files that would repeat everything else.
 */
import { Type, type TProperties } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { limits } from '../limits.ts';
import { ErrorBody, Nullable, PathName, Sha256Hex, ShortText, Url } from '../shared.ts';

/** Most running artifacts one report may list (a report body is at most 1MB anyway). */
export const maxReportArtifacts = 5_000;

const Digests = Type.Record(Type.String({ minLength: 1, maxLength: limits.url }), Sha256Hex, {
  minProperties: 1,
  maxProperties: limits.smallArray,
  description: 'Artifact name → SHA-256 fingerprint',
});
const CreationTimestamp = Type.Integer({ minimum: 0, maximum: 1e11, description: 'When it started running, Unix epoch seconds' });
const Text = () => ShortText({ minLength: 1 });

const K8SOwner = Type.Object(
  {
    apiVersion: Text(),
    kind: Text(),
    name: Text(),
    uid: Text(),
    controller: Nullable(Type.Boolean()),
    blockOwnerDeletion: Nullable(Type.Boolean()),
  },
  { maxProperties: 20 },
);

/** The fields that identify a running instance, per report type (beside `digests` and `creationTimestamp`). */
const instanceFields = {
  server: {},
  docker: {},
  S3: {},
  lambda: {},
  K8S: { podName: Text(), namespace: Text(), owners: Nullable(Type.Array(K8SOwner, { maxItems: 20 })) },
  ECS: { taskArn: Url({ minLength: 1 }), cluster_name: Nullable(ShortText()), service_name: Nullable(ShortText()) },
  'azure-apps': { app_name: Text(), app_kind: Nullable(ShortText()), digests_source: Nullable(ShortText()) },
  // As CLI v2.38 sends it (a job has no revision), and the older snake_case service name.
  'cloud-run': {
    kind: Type.Optional(Text()),
    serviceName: Type.Optional(Text()),
    revisionName: Type.Optional(Text()),
    jobName: Type.Optional(Text()),
    service_name: Nullable(ShortText()),
  },
} satisfies Record<ReportType, TProperties>;

export const reportTypes = ['server', 'docker', 'K8S', 'ECS', 'S3', 'lambda', 'azure-apps', 'cloud-run'] as const;
export type ReportType = (typeof reportTypes)[number];

const camel = (type: ReportType) =>
  type
    .split('-')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

export const ReportResult = Type.Object(
  {
    snapshot_index: Type.Integer({ minimum: 1, description: 'The latest snapshot, new or not' }),
    changed: Type.Boolean({ description: 'true when this report made a new snapshot' }),
    deployed: Type.Array(Type.String(), { description: 'Fingerprints that started running with this report' }),
    _links: Type.Object({ snapshot: Type.Object({ href: Type.String() }) }, { additionalProperties: false }),
  },
  { $id: 'ReportResult', additionalProperties: false },
);

/** The operation of one report type; `fields` are `instanceFields[type]`, passed so that their types reach `Static`. */
function reportOperation<T extends ReportType, F extends TProperties>(type: T, fields: F) {
  const Artifact = Type.Object({ ...fields, digests: Digests, creationTimestamp: CreationTimestamp }, { additionalProperties: false });
  const Report = Type.Object(
    {
      type: Type.Optional(Type.Literal(type)),
      artifacts: Type.Array(Artifact, { maxItems: maxReportArtifacts, description: 'Everything running now' }),
    },
    { $id: `${camel(type)}Report`, additionalProperties: false },
  );
  return defineOperation({
    id: `report${camel(type)}`,
    summary: `Report ${type} environment`,
    description:
      `What runs now in a ${type} environment. A set of running artifacts that differs from the latest snapshot makes a new ` +
      'snapshot (201) and a deployment for every artifact that was not running before; an unchanged report makes none (200).',
    tags: ['Environments'],
    method: 'PUT',
    path: `/environments/{org}/{env_name}/report/${type}`,
    access: 'write',
    params: Type.Object({ org: PathName('Organisation'), env_name: PathName('Environment name') }),
    query: Type.Object({}),
    body: { kind: 'json', data: Report },
    responses: {
      200: { description: 'Nothing changed: no new snapshot', schema: Type.Ref(ReportResult) },
      201: { description: 'Snapshot created', schema: Type.Ref(ReportResult) },
      400: { description: 'Invalid report, or an environment of another type', schema: Type.Ref(ErrorBody) },
      404: { description: 'Environment not found', schema: Type.Ref(ErrorBody) },
    },
    schemas: [Report, ReportResult],
  });
}

export const reportServer = reportOperation('server', instanceFields.server);
export const reportDocker = reportOperation('docker', instanceFields.docker);
export const reportK8S = reportOperation('K8S', instanceFields.K8S);
export const reportECS = reportOperation('ECS', instanceFields.ECS);
export const reportS3 = reportOperation('S3', instanceFields.S3);
export const reportLambda = reportOperation('lambda', instanceFields.lambda);
export const reportAzureApps = reportOperation('azure-apps', instanceFields['azure-apps']);
export const reportCloudRun = reportOperation('cloud-run', instanceFields['cloud-run']);

/** The eight report operations, by report type. */
export const reportOperations = {
  server: reportServer,
  docker: reportDocker,
  K8S: reportK8S,
  ECS: reportECS,
  S3: reportS3,
  lambda: reportLambda,
  'azure-apps': reportAzureApps,
  'cloud-run': reportCloudRun,
} as const;
