/**
 * Environment policies: the organisation's list (each with its latest version and the
 * environments it is attached to), and one policy with every version's YAML as it was uploaded,
 * newest first, each with its SHA-256 (what a verdict names) and a link to the verdicts.
 */
import { notFound } from '../../http/errors.ts';
import type { PolicyRecord } from '../../store/index.ts';
import { Empty } from '../components/empty.tsx';
import { LinkList } from '../components/link-list.tsx';
import { Time } from '../components/time.tsx';
import { environmentPageHref, orgHref, type LinkBase } from '../links.ts';
import { definePage } from '../page.ts';

/** The page of a policy. */
export const policyPageHref = (at: LinkBase, policy: string) => orgHref(at, 'policies', policy);

function EnvironmentLinks({ at, names }: { at: LinkBase; names: readonly string[] }) {
  return <LinkList names={names} href={(name) => environmentPageHref(at, name)} empty="none" />;
}

export const policiesPage = definePage({
  path: '/:org/policies',
  async render(input) {
    const { store, org, now } = input;
    const policies = await input.cache.read('policies', { org: org.id }, () => store.findPolicies(org.id));
    return {
      title: `Policies · ${org.name}`,
      content: (
        <>
          <p class="crumbs">
            <a href={orgHref(input)}>{org.name}</a> › policies
          </p>
          <h1>Environment policies</h1>
          <p>
            What an environment's running artifacts must satisfy. Each <a href={orgHref(input, 'verdicts')}>verdict</a> names the version it judged by.
          </p>
          {policies.length === 0 ? (
            <Empty
              example={`curl -X PUT "${input.apiBase}/policies/${org.name}" -H "Authorization: Bearer $TOKEN" \\\n  -F 'payload={"name":"prod-policy","type":"env"}' -F policy_file=@policy.yml`}
            >
              No policy yet.
            </Empty>
          ) : (
            <table class="policies">
              <caption class="visually-hidden">Policies of {org.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Policy</th>
                  <th scope="col">Description</th>
                  <th scope="col" class="num">
                    Latest version
                  </th>
                  <th scope="col">Since</th>
                  <th scope="col">Attached to</th>
                </tr>
              </thead>
              <tbody>
                {policies.map((policy) => (
                  <tr data-policy={policy.name}>
                    <td>
                      <a href={policyPageHref(input, policy.name)}>{policy.name}</a>
                    </td>
                    <td>{policy.description}</td>
                    <td class="num">{policy.versions.at(-1)?.version ?? 0}</td>
                    <td>
                      <Time at={policy.versions.at(-1)?.timestamp} now={now} />
                    </td>
                    <td>
                      <EnvironmentLinks at={input} names={policy.consuming_envs} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      ),
    };
  },
});

function Version({ policy, version, now }: { policy: PolicyRecord; version: PolicyRecord['versions'][number]; now: number }) {
  const latest = version === policy.versions.at(-1);
  return (
    <section class="policy-version" data-version={version.version} aria-labelledby={`v${version.version}`}>
      <h3 id={`v${version.version}`}>
        Version {version.version}
        {latest ? ' (latest: what environments judge by)' : null}
      </h3>
      <dl class="facts">
        <dt>Uploaded</dt>
        <dd>
          <Time at={version.timestamp} now={now} />
        </dd>
        <dt>SHA-256</dt>
        <dd>
          <code class="fingerprint">{version.sha256}</code>
        </dd>
        {version.comment ? (
          <>
            <dt>Comment</dt>
            <dd>{version.comment}</dd>
          </>
        ) : null}
      </dl>
      <pre class="policy-yaml">{version.policy_yaml}</pre>
    </section>
  );
}

export const policyPage = definePage({
  path: '/:org/policies/:policy',
  async render(input) {
    const { store, org, params, now } = input;
    const [policy] = await input.cache.read('policy', { org: org.id, policy: params.policy! }, () => store.findPolicies(org.id, [params.policy!]));
    if (!policy) throw notFound(`Policy '${params.policy}' does not exist in organization '${org.name}'`);
    return {
      title: `${policy.name} · policy`,
      content: (
        <>
          <p class="crumbs">
            <a href={orgHref(input)}>{org.name}</a> › <a href={orgHref(input, 'policies')}>policies</a>
          </p>
          <h1>{policy.name}</h1>
          <dl class="facts">
            {policy.description ? (
              <>
                <dt>Description</dt>
                <dd>{policy.description}</dd>
              </>
            ) : null}
            <dt>Type</dt>
            <dd>{policy.type}</dd>
            <dt>Attached to</dt>
            <dd data-testid="policy-environments">
              <EnvironmentLinks at={input} names={policy.consuming_envs} />
            </dd>
          </dl>
          <h2>Versions ({policy.versions.length})</h2>
          {[...policy.versions].reverse().map((version) => (
            <Version policy={policy} version={version} now={now} />
          ))}
        </>
      ),
    };
  },
});
