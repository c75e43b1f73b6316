/**
 * What the Kosli CLI makes of a scanner's output before it sends it, for the wire tests: Snyk's
 * SARIF file (internal/snyk/snyk.go `ProcessSnykResultFile`) and SonarQube's answers
 * (internal/sonar/sonar.go `GetQualityGate`), ported line for line so a fixture in the tool's own
 * format gives the payload the CLI would send.
 */

type SarifResult = {
  ruleId?: string;
  level?: string;
  message?: { text?: string };
  locations?: Array<{
    physicalLocation?: { artifactLocation?: { uri?: string }; region?: { startLine?: number; endLine?: number } };
  } | null>;
  properties?: { priorityScore?: number | null };
};
type SarifRun = {
  tool: { driver: { name: string; version?: string; rules?: Array<{ id: string; properties?: { problem?: { severity?: string } } }> } };
  results?: SarifResult[];
};

const sarifSchemas = [
  'https://raw.githubusercontent.com/oasis-tcs/sarif-spec/main/',
  'https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-',
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json',
];

function vulnerability(r: SarifResult) {
  const locations = (r.locations ?? [])
    .filter((l) => l?.physicalLocation)
    .map((l) => {
      const region = l!.physicalLocation!.region;
      let lines = '';
      if (region?.startLine !== undefined) {
        lines = String(region.startLine);
        if (region.endLine !== undefined && region.endLine !== region.startLine) lines += `-${region.endLine}`;
      }
      return { uri: l!.physicalLocation!.artifactLocation?.uri ?? '', ...(lines ? { lines } : {}) };
    });
  const score = r.properties?.priorityScore;
  return {
    id: r.ruleId ?? '',
    message: r.message?.text ?? '',
    ...(locations.length ? { locations } : {}),
    ...(score ? { priority_score: score } : {}),
  };
}

/** `snyk.ProcessSnykResultFile` on the text of a SARIF file: the `snyk_results` the CLI sends. */
export function snykResultsOf(sarifText: string) {
  const report = JSON.parse(sarifText) as { $schema?: string; runs?: SarifRun[] };
  if (!sarifSchemas.some((s) => (report.$schema ?? '').startsWith(s))) throw new Error('invalid sarif file');
  const runs = report.runs ?? [];
  const results = runs.map((run) => {
    const out = { high_count: 0, medium_count: 0, low_count: 0 } as Record<string, unknown> & { high_count: number; medium_count: number; low_count: number };
    const add = (severity: 'high' | 'medium' | 'low', v: ReturnType<typeof vulnerability>) => {
      out[`${severity}_count`] = (out[`${severity}_count`] as number) + 1;
      ((out[severity] ??= []) as unknown[]).push(v);
    };
    for (const r of run.results ?? []) {
      const v = vulnerability(r);
      let level = r.level;
      if (level === undefined) {
        level = run.tool.driver.rules?.find((rule) => rule.id === v.id)?.properties?.problem?.severity;
        if (level === undefined) throw new Error(`could not find level for rule ID: ${v.id}`);
      }
      if (['error', 'high', 'critical'].includes(level)) add('high', v);
      else if (['warning', 'medium'].includes(level)) add('medium', v);
      else if (['info', 'low', 'note'].includes(level)) add('low', v);
    }
    return out;
  });
  return { schema_version: 1, tool: { name: runs[0]?.tool.driver.name ?? '', version: runs[0]?.tool.driver.version ?? '' }, results };
}

/** SonarQube's `api/qualitygates/project_status` answer (`QualityGateResponse`). */
export interface SonarProjectStatus {
  projectStatus: { status: string; conditions?: Array<{ status: string; metricKey: string; comparator: string; errorThreshold: string; actualValue: string }> };
}

/** `sonar.SonarResults` as `GetSonarResults` fills it for a branch scan, its quality gate from `GetQualityGate`. */
export function sonarResultsOf(
  task: { serverUrl: string; taskId: string; status: string; analysedAt: string; revision: string; projectKey: string; branch: string },
  answer: SonarProjectStatus,
) {
  const conditions = (answer.projectStatus.conditions ?? []).map((c) => ({
    metric: c.metricKey,
    errorThreshold: c.errorThreshold,
    operator: c.comparator,
    ...(c.actualValue ? { value: c.actualValue } : {}),
    status: c.status,
  }));
  return {
    serverUrl: task.serverUrl,
    taskId: task.taskId,
    status: task.status,
    analysedAt: task.analysedAt,
    revision: task.revision,
    project: { key: task.projectKey, name: task.projectKey, url: `${task.serverUrl}/dashboard?id=${task.projectKey}&branch=${task.branch}` },
    branch: { name: task.branch, type: 'BRANCH' },
    qualityGate: { status: answer.projectStatus.status, conditions },
  };
}
