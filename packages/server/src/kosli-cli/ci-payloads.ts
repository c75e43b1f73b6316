/**
 * What the Kosli CLI puts in `repo_info`, `git_commit_info` and `origin_url` in each CI it knows,
 * for the compatibility tests. Followed: cmd/kosli/attestation.go (`getGitRepoInfoFromGitHub`,
 * `...FromGitLab`, `...FromBitbucket`, `...FromAzureDevops`, `azureRepoProvider`, `splitNonEmpty`,
 * `repoProviderList`) and internal/gitview (`BasicCommitInfo`); Go's `omitempty` leaves out empty
 * strings, nil lists and nil maps, and `mergeGitRepoInfo` leaves out repo_info without id, name or url.
 */

export type Ci = 'github' | 'gitlab' | 'bitbucket' | 'azure-services' | 'azure-server' | 'local';

export const cis: readonly Ci[] = ['github', 'gitlab', 'bitbucket', 'azure-services', 'azure-server', 'local'];

/** `repo_info` as the CLI fills it in by itself in each CI; none in a local run. */
export function repoInfoIn(ci: Ci): Record<string, unknown> | undefined {
  switch (ci) {
    case 'github':
      return { url: 'https://github.com/acme/shop', name: 'acme/shop', id: '712345678', provider: 'github' };
    case 'gitlab':
      return {
        url: 'https://gitlab.com/acme/platform/shop',
        name: 'acme/platform/shop',
        id: '4242',
        description: 'The shop <front & back>',
        provider: 'gitlab',
        namespace_path: ['acme', 'platform'],
      };
    case 'bitbucket':
      return {
        url: 'https://bitbucket.org/acme/shop',
        name: 'acme/shop',
        id: '{9a1c2f3e-0b4d-4e5f-8a6b-7c8d9e0f1a2b}',
        provider: 'bitbucket_cloud',
        namespace_path: ['acme'],
        additional_info: { project_key: 'SHOP' },
      };
    case 'azure-services':
      return {
        url: 'https://dev.azure.com/acme/Shop/_git/shop',
        name: 'acme/Shop/shop',
        id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
        provider: 'azure_devops_services',
        namespace_path: ['acme', 'Shop'],
      };
    case 'azure-server':
      return {
        url: 'https://tfs.acme.example/DefaultCollection/Shop/_git/shop',
        name: 'DefaultCollection/Shop/shop',
        id: '5f0c6a1e-2b7d-4c3a-9e8f-1a2b3c4d5e6f',
        provider: 'azure_devops_server',
        namespace_path: ['DefaultCollection', 'Shop'],
      };
    case 'local':
      return undefined;
  }
}

/** `--origin-url`'s default in each CI (the build URL); none in a local run. */
export function originUrlIn(ci: Ci): string | undefined {
  return {
    github: 'https://github.com/acme/shop/actions/runs/9876543210',
    gitlab: 'https://gitlab.com/acme/platform/shop/-/jobs/123456',
    bitbucket: 'https://bitbucket.org/acme/shop/addon/pipelines/home#!/results/77',
    'azure-services': 'https://dev.azure.com/acme/Shop/_build/results?buildId=991',
    'azure-server': 'https://tfs.acme.example/DefaultCollection/Shop/_build/results?buildId=12',
    local: undefined,
  }[ci];
}

/** `gitview.BasicCommitInfo` of a commit (`timestamp` an int64; `url` left out when unknown, as in a local run). */
export function commitInfo(sha1: string, ci: Ci): Record<string, unknown> {
  const info: Record<string, unknown> = {
    sha1,
    message: 'Fix the <checkout> & totals',
    author: 'Jane Doe <jane@example.com>',
    timestamp: 1_763_000_123,
    branch: 'main',
  };
  const repo = repoInfoIn(ci);
  if (repo) info.url = `${repo.url}/commit/${sha1}`;
  return info;
}

/** The values `--repo-provider` takes beyond what CIs fill in (`repoProviderList`). */
export const flagOnlyProviders = ['bitbucket', 'bitbucket_dc', 'azure-devops', 'git', 'subversion'] as const;

/** `kosli create flow NAME --template-file template.yml` (createFlow.go's `newFlowForm`): the flow's data_json and the template file. */
export const flowWithTemplateForm = (name: string, templateYaml: string) => [
  { type: 'field' as const, name: 'data_json', content: { name, description: '', visibility: 'private' } },
  { type: 'file' as const, name: 'template_file', filename: 'template.yml', bytes: Buffer.from(templateYaml) },
];

/** What getAttestation.go's `printAttestationsAsTable` reads of each attestation without a check (`Attestation`). */
export const goAttestationFields = {
  attestation_name: 'string',
  attestation_type: 'string',
  is_compliant: 'bool',
  created_at: 'float64',
  html_url: 'string',
} as const;
