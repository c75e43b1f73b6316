import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { paths } from '../paths.ts';
import { ErrorBody, LongText, PathName, Sha256Hex, ShortText } from '../shared.ts';

/** What `kosli allow artifact` sends (allowArtifact.go `AllowlistPayload`), as Kosli's `AllowlistPutInput`. */
export const AllowlistInput = Type.Object(
  {
    artifact_fingerprint: Sha256Hex,
    artifact_name: ShortText({ description: 'The name of the artifact allowed' }),
    description: LongText({ description: 'Why it is allowed' }),
  },
  { $id: 'AllowlistInput', additionalProperties: false },
);

export const AllowlistEntry = Type.Object(
  {
    artifact_name: Type.String(),
    fingerprint: Type.String(),
    environment_name: Type.String(),
    timestamp: Type.Number(),
    user_name: Type.String({ description: 'The token that allowed it' }),
    description: Type.String(),
  },
  { $id: 'AllowlistEntry' },
);

/** PUT /allowlists/{org}/{env_name}, as `kosli allow artifact` sends it. */
export const putAllowlist = defineOperation({
  id: 'putAllowlist',
  summary: 'Allow artifact in environment',
  description:
    "Adds a fingerprint to the environment's allow-list: it passes the environment's judgement (its policies, or provenance when none is attached) " +
    'in every snapshot from then on. Allowances are kept, each with who made it, when and why.',
  tags: ['Environments'],
  method: 'PUT',
  path: paths.putAllowlist,
  access: 'write',
  params: Type.Object({ org: PathName('Organisation'), env_name: PathName('Environment name') }),
  query: Type.Object({}),
  body: { kind: 'json', data: AllowlistInput },
  responses: {
    201: { description: 'Allowed: the allowance as sent', schema: Type.Ref(AllowlistInput) },
    400: { description: 'Invalid input', schema: Type.Ref(ErrorBody) },
    404: { description: 'No such environment', schema: Type.Ref(ErrorBody) },
  },
  schemas: [AllowlistInput],
});

/** GET /allowlists/{org}: every allowance of the organisation. */
export const listAllowlists = defineOperation({
  id: 'listAllowlists',
  summary: 'List allow-listed artifacts',
  description: "The organisation's allowances, oldest first, with the environment each is for.",
  tags: ['Environments'],
  method: 'GET',
  path: paths.listAllowlists,
  access: 'read',
  params: Type.Object({ org: PathName('Organisation') }),
  query: Type.Object({}),
  body: undefined,
  responses: {
    200: { description: 'The allowances', schema: Type.Array(Type.Ref(AllowlistEntry)) },
    404: { description: 'No such organisation', schema: Type.Ref(ErrorBody) },
  },
  schemas: [AllowlistEntry],
});
