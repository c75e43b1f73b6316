/** The flow resource and its template, shared by the flow operations and the trail answers. */
import { Type, type Static } from '@sinclair/typebox';
import { limits } from '../limits.ts';
import { EpochSeconds, Literals, LongText, Nullable, PathName, Url } from '../shared.ts';

export const flowVisibilities = ['public', 'private'] as const;
export const Visibility = Literals(flowVisibilities);

/** One required attestation of a template: its name and type (`*` matches any type). */
export const TemplateAttestation = Type.Object({ name: Type.String(), type: Type.String() }, { $id: 'TemplateAttestation', additionalProperties: false });

export const TemplateArtifact = Type.Object(
  { name: Type.String(), attestations: Type.Array(Type.Ref(TemplateAttestation)) },
  { $id: 'TemplateArtifact', additionalProperties: false },
);

/** A flow template (YAML, version 1) as the API answers it: the parsed requirements and the YAML text. */
export const Template = Type.Object(
  {
    version: Type.Literal(1),
    trail: Type.Object(
      {
        attestations: Type.Array(Type.Ref(TemplateAttestation), { description: 'Required trail-level attestations' }),
        artifacts: Type.Array(Type.Ref(TemplateArtifact), { description: 'Expected artifacts and their required attestations' }),
      },
      { additionalProperties: false },
    ),
    content: Type.Union([Type.String(), Type.Null()], { description: 'The YAML text of the template' }),
  },
  { $id: 'Template', additionalProperties: false },
);
export type Template = Static<typeof Template>;

export const Flow = Type.Object(
  {
    org: Type.String(),
    name: Type.String(),
    description: Type.String(),
    visibility: Visibility,
    template: Type.Union([Type.Ref(Template), Type.Null()], { description: 'null when the flow has no template' }),
    template_id: Type.Union([Type.String(), Type.Null()], { description: 'SHA-256 of the template YAML' }),
    repo_url: Type.Union([Type.String(), Type.Null()]),
    tags: Type.Record(Type.String(), Type.String(), {
      description: "The flow's tags, key to value, set by PATCH /tags (the Kosli CLI reads them on every flow it lists)",
    }),
    created_at: EpochSeconds(),
    last_modified_at: EpochSeconds(),
  },
  { $id: 'Flow', additionalProperties: false },
);

/** `data_json` of PUT /flows/{org}/template_file (the reference's CreateFlow). */
export const CreateFlowInput = Type.Object(
  {
    name: PathName('Flow name'),
    description: Nullable(LongText()),
    visibility: Nullable(Visibility),
    repo_url: Nullable(Url()),
  },
  { $id: 'CreateFlow', additionalProperties: false },
);

/** Body of PUT /flows/{org} (the reference's LegacyCreateFlow): the template is a list of attestation names. */
export const LegacyCreateFlowInput = Type.Object(
  {
    name: PathName('Flow name'),
    description: Nullable(LongText()),
    visibility: Nullable(Visibility),
    template: Nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: limits.name, pattern: '^[a-zA-Z0-9\\-_,]+$' }), {
        maxItems: limits.smallArray,
        description: 'Names of required trail-level attestations (any type); `artifact` is accepted and ignored',
      }),
    ),
    repo_url: Nullable(Url()),
  },
  { $id: 'LegacyCreateFlow', additionalProperties: false },
);

/** Schemas every flow operation registers. */
export const flowSchemas = [TemplateAttestation, TemplateArtifact, Template, Flow];
