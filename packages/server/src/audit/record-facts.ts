/**
 * What the evidence as the API shows it must share with the stored row its leaf vouches for.
 * Each check names the first field that differs. Fields the API derives or decorates (links,
 * compliance, `is_latest`, `created_by`'s token name, JUnit totals) are not vouched for by a
 * leaf and are not compared; docs/verification.md lists what is.
 */
import { canonicalJson } from '../store/queries/chain.ts';
import type { LeafType } from './package-format.ts';

type Json = Record<string, unknown>;

/** One vouched field: its name in the view, and its value as the row (or the leaf) holds it. */
type Facts = ReadonlyArray<readonly [field: string, expected: unknown]>;

const parsed = (text: unknown): unknown => {
  if (typeof text !== 'string') return text ?? null;
  try {
    return JSON.parse(text);
  } catch {
    return Symbol('unparsable'); // equals nothing: the view cannot match a row that does not parse
  }
};
const objectOr = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const orNull = (value: unknown) => value ?? null;

/** The facts each kind of view shows from its row (and leaf `data`), by the leaf's type. */
const factsOf: Record<LeafType, (row: Json, data: Json) => Facts> = {
  attestation(row) {
    const data = objectOr(parsed(row.data));
    const attachment = row.attachment_sha256 === null ? null : { name: orNull(row.attachment_name) ?? '', sha256: row.attachment_sha256 };
    return [
      ['attestation_id', String(row.id)],
      ['attestation_name', row.name],
      ['attestation_type', row.type],
      ['is_compliant', Boolean(Number(row.compliant))],
      ['created_at', Number(row.created_at)],
      ['artifact_fingerprint', orNull(row.artifact_fingerprint)],
      ...(['description', 'origin_url', 'git_commit_info', 'repo_info', 'external_urls', 'annotations', 'user_data'] as const).map(
        (field) => [field, orNull(data[field])] as const,
      ),
      ['junit_results', row.type === 'junit' ? orNull(data.junit_results) : null],
      ['attachment', attachment],
    ];
  },
  artifact(row, data) {
    return [
      ['artifact_id', String(row.id)],
      ['fingerprint', row.fingerprint],
      ['filename', row.filename],
      ['template_reference_name', row.template_reference_name],
      ['flow_name', data.flow],
      ['trail_name', data.trail],
      ['git_commit', orNull(row.git_commit)],
      ['git_commit_info', parsed(row.git_commit_info)],
      ['repo_info', parsed(row.repo_info)],
      ['build_url', row.build_url],
      ['commit_url', row.commit_url],
      ['repo_url', orNull(row.repo_url)],
      ['external_urls', parsed(row.external_urls)],
      ['annotations', parsed(row.annotations)],
      ['created_at', Number(row.created_at)],
    ];
  },
  'trail.begin'(row, data) {
    return [
      ['name', row.name],
      ['description', row.description],
      ['flow', { name: data.flow }],
      ['origin_url', orNull(row.origin_url)],
      ['git_commit_info', parsed(row.git_commit_info)],
      ['repo_info', parsed(row.repo_info)],
      ['external_urls', parsed(row.external_urls)],
      ['user_data', parsed(row.user_data)],
      ['created_at', Number(row.created_at)],
    ];
  },
  snapshot(row, data) {
    const artifacts = parsed(row.artifacts);
    const fingerprints = Array.isArray(artifacts) ? artifacts.map((a) => objectOr(a).fingerprint) : artifacts;
    return [
      ['env_name', data.environment],
      ['snapshot_index', Number(row.snapshot_index)],
      ['created_at', Number(row.created_at)],
      ['artifacts.fingerprint', fingerprints],
    ];
  },
  approval(row) {
    return [
      ['release_number', Number(row.release_number)],
      ['target_artifact', row.target_artifact],
      ['base_artifact', row.base_artifact],
      ['artifact_name', row.artifact_name],
      ['description', row.description],
      ['src_commit_list', parsed(row.src_commit_list)],
      ['created_at', Number(row.created_at)],
      ['environment', orNull(row.environment)],
      ['user_data', parsed(row.user_data)],
    ];
  },
  review(row) {
    return [
      ['state', row.state],
      ['comment', row.comment],
      ['approved_by', row.approved_by],
      ['approval_url', row.approval_url],
      ['timestamp', Number(row.timestamp)],
    ];
  },
  verdict(row) {
    return [
      ['fingerprint', row.fingerprint],
      ['compliant', Boolean(Number(row.compliant))],
      ['created_at', Number(row.created_at)],
      ['verdict', parsed(row.verdict)],
    ];
  },
  'policy.version'(row, data) {
    return [
      ['name', data.policy],
      ['version', Number(row.version)],
      ['comment', row.comment],
      ['timestamp', Number(row.created_at)],
      ['policy_yaml', row.policy_yaml],
      ['sha256', row.sha256],
    ];
  },
};

/** The view's value of `field`: `a.b` reads `b` of each item of the array `a`. */
function viewValue(view: Json, field: string): unknown {
  const [head, tail] = field.split('.', 2) as [string, string | undefined];
  const value = view[head];
  // GET approval shows each commit with its artifacts, the list shows the commit alone.
  if (field === 'src_commit_list' && Array.isArray(value)) return value.map((c) => (typeof c === 'string' ? c : objectOr(c).commit_sha));
  if (tail === undefined) return value === undefined ? null : value;
  return Array.isArray(value) ? value.map((item) => objectOr(item)[tail]) : null;
}

/**
 * The first vouched field in which `view` (of leaf `index`) differs from its row (and leaf `data`),
 * as a sentence; undefined when they agree. Values compare as canonical JSON; an attachment compares by name
 * and SHA-256 (its size is checked against the attachment's bytes).
 */
export function viewMismatch(type: LeafType, index: number, view: unknown, row: Json, leafData: Json): string | undefined {
  if (view === null || typeof view !== 'object' || Array.isArray(view)) return 'the view is not a JSON object';
  // The API names each piece of evidence's leaf; where the view does, it must be this leaf.
  const logIndex = (view as Json).log_index;
  if (logIndex !== undefined && logIndex !== null && logIndex !== index) return `log_index is ${clip(canonicalJson(logIndex))} in the folder of leaf ${index}`;
  for (const [field, expected] of factsOf[type](row, leafData)) {
    let actual = viewValue(view as Json, field);
    if (field === 'attachment' && actual !== null) actual = { name: objectOr(actual).name, sha256: objectOr(actual).sha256 };
    if (typeof expected === 'symbol' || canonicalJson(actual) !== canonicalJson(expected)) {
      return `${field} is ${clip(canonicalJson(actual))} where the stored row holds ${typeof expected === 'symbol' ? 'unreadable JSON' : clip(canonicalJson(expected))}`;
    }
  }
  return undefined;
}

/**
 * The first fact of the leaf's `data` that its row contradicts (names, fingerprints, the
 * attachment's digest), undefined when none: the row's digest is in the leaf already, this
 * names the fact a reader of the leaf would see.
 */
export function leafDataMismatch(type: LeafType, row: Json, data: Json): string | undefined {
  const pairs: Array<[string, unknown]> =
    type === 'attestation'
      ? [
          ['name', row.name],
          ['type', row.type],
          ['artifact_fingerprint', orNull(row.artifact_fingerprint)],
          ['attachment_sha256', orNull(row.attachment_sha256)],
        ]
      : type === 'artifact'
        ? [
            ['fingerprint', row.fingerprint],
            ['template_reference_name', row.template_reference_name],
          ]
        : type === 'snapshot'
          ? [['snapshot_index', Number(row.snapshot_index)]]
          : type === 'approval'
            ? [
                ['release_number', Number(row.release_number)],
                ['target_artifact', row.target_artifact],
              ]
            : type === 'review'
              ? [
                  ['state', row.state],
                  ['approved_by', row.approved_by],
                ]
              : type === 'policy.version'
                ? [
                    ['version', Number(row.version)],
                    ['sha256', row.sha256],
                  ]
                : type === 'verdict'
                  ? [
                      ['fingerprint', row.fingerprint],
                      ['compliant', Boolean(Number(row.compliant))],
                      ['verdict_sha256', row.verdict_sha256],
                    ]
                  : [['trail', row.name]];
  for (const [field, expected] of pairs) {
    if (field in data && canonicalJson(data[field]) !== canonicalJson(expected))
      return `the leaf's data.${field} is ${clip(canonicalJson(data[field]))}, the row's is ${clip(canonicalJson(expected))}`;
  }
  return undefined;
}

const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);
