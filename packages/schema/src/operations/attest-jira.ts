import { Type } from '@sinclair/typebox';
import { defineOperation } from '../contract.ts';
import { limits } from '../limits.ts';
import { paths } from '../paths.ts';
import { ShortText, Url } from '../shared.ts';
import { AttestationName, attestationBody, attestationResponses, commonAttestationFields, TrailPathParams } from './attestation-input.ts';

/** `jira.JiraIssueInfo` (internal/jira/jira.go): an issue key found in the commit, and whether Jira has it. */
export const JiraIssue = Type.Object(
  {
    issue_id: ShortText(),
    issue_url: Url(),
    issue_exists: Type.Boolean(),
    // go-jira's IssueFields: whatever fields `--jira-issue-fields` asked for (`*all`: every field, custom ones too).
    // At most as many fields as findings: `*all` asks for every field, custom ones too.
    issue_fields: Type.Optional(
      Type.Union([Type.Record(Type.String({ maxLength: limits.shortText }), Type.Unknown(), { maxProperties: limits.findings }), Type.Null()]),
    ),
  },
  { $id: 'JiraIssue', additionalProperties: false },
);

/** `JiraAttestationPayload` (cmd/kosli/attestJira.go): always a list, empty when no reference was found. */
export const JiraAttestationInput = Type.Object(
  { attestation_name: AttestationName, jira_results: Type.Array(Type.Ref(JiraIssue), { maxItems: limits.findings }), ...commonAttestationFields },
  { $id: 'JiraAttestationInput', additionalProperties: false },
);

/** POST /attestations/{org}/{flow_name}/trail/{trail_name}/jira */
export const attestJira = defineOperation({
  id: 'attestJira',
  summary: 'Attest Jira issues',
  description:
    'Attach the Jira issues referenced by a commit or branch: compliant when at least one reference was found and every issue exists. A trail not begun is begun.',
  tags: ['Attestations'],
  method: 'POST',
  path: paths.attestJira,
  access: 'write',
  params: TrailPathParams,
  query: Type.Object({}),
  body: attestationBody(JiraAttestationInput),
  responses: attestationResponses,
  schemas: [JiraIssue, JiraAttestationInput],
});
