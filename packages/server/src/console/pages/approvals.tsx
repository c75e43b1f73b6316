/** A flow's approvals, newest first, and one approval with every review. */
import { createdByName } from '../../domain/created-by.ts';
import { notFound } from '../../http/errors.ts';
import { requireFlow } from '../../operations/lookup.ts';
import type { ApprovalRecord } from '../../store/index.ts';
import { Compliance } from '../components/compliance.tsx';
import { Empty } from '../components/empty.tsx';
import { Time } from '../components/time.tsx';
import { artifactPageHref, environmentPageHref, flowHref, orgHref, queryNumber, safeUrl, withQuery } from '../links.ts';
import { definePage, type PageInput } from '../page.ts';
import { roleAllows } from '../roles.ts';

/** An approval's state in words with a mark: APPROVED ✓, UNAPPROVED ✗, PENDING –. */
function ApprovalState({ state }: { state: string }) {
  return <Compliance compliant={state === 'APPROVED' ? true : state === 'UNAPPROVED' ? false : null} label={state} />;
}

const approvalHref = (at: Pick<PageInput, 'base' | 'org'>, flow: string, number: number) => orgHref(at, 'flows', flow, 'approvals', number);

function Crumbs({ input, flow, tail }: { input: PageInput; flow: string; tail?: string }) {
  return (
    <p class="crumbs">
      <a href={orgHref(input)}>{input.org.name}</a> › <a href={flowHref(input, flow)}>{flow}</a> ›{' '}
      {tail ? (
        <>
          <a href={orgHref(input, 'flows', flow, 'approvals')}>approvals</a> › {tail}
        </>
      ) : (
        'approvals'
      )}
    </p>
  );
}

const perPage = 20;

export const approvalsPage = definePage({
  path: '/:org/flows/:flow/approvals',
  async render(input) {
    const { store, params, query, now, url } = input;
    const { flow } = await requireFlow(store, input.org.name, params.flow!);
    const page = queryNumber(query, 'page', 1, 1, 100_000);
    // One more than a page: whether there is a next one (the API's list has no count).
    const approvals = await store.listApprovals(flow.id, (page - 1) * perPage, perPage + 1);
    const more = approvals.length > perPage;
    return {
      title: `Approvals · ${flow.name}`,
      content: (
        <>
          <Crumbs input={input} flow={flow.name} />
          <h1>Approvals of {flow.name}</h1>
          {approvals.length === 0 ? (
            <Empty example={`kosli request approval --flow ${flow.name} --fingerprint <sha256> --environment production`}>
              No approval has been requested in this flow{page > 1 ? ' on this page' : ''}.
            </Empty>
          ) : (
            <table>
              <caption class="visually-hidden">Approvals of {flow.name}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">State</th>
                  <th scope="col">Artifact</th>
                  <th scope="col">Environment</th>
                  <th scope="col" class="num">
                    Reviews
                  </th>
                  <th scope="col">Requested (UTC)</th>
                  <th scope="col">Requested by</th>
                </tr>
              </thead>
              <tbody>
                {approvals.slice(0, perPage).map((approval) => (
                  <tr key={approval.release_number}>
                    <td>
                      <a href={approvalHref(input, flow.name, approval.release_number)}>#{approval.release_number}</a>
                    </td>
                    <td>
                      <ApprovalState state={approval.state} />
                    </td>
                    <td>
                      {approval.artifact_name}{' '}
                      <a href={artifactPageHref(input, approval.target_artifact)}>
                        <code title={approval.target_artifact}>{approval.target_artifact.slice(0, 12)}</code>
                      </a>
                    </td>
                    <td>
                      {approval.environment ? (
                        <a href={environmentPageHref(input, approval.environment)}>{approval.environment}</a>
                      ) : (
                        <span class="muted">any</span>
                      )}
                    </td>
                    <td class="num">{approval.approvals.length}</td>
                    <td>
                      <Time at={approval.created_at} now={now} />
                    </td>
                    <td>{createdByName(approval.createdBy) ?? <span class="muted">not recorded</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <nav class="pager" aria-label="Pages">
            {page > 1 ? (
              <a href={withQuery(url, { page: page - 1 })} rel="prev">
                ← Newer
              </a>
            ) : null}
            {more ? (
              <a href={withQuery(url, { page: page + 1 })} rel="next">
                Older →
              </a>
            ) : null}
          </nav>
        </>
      ),
    };
  },
});

function Reviews({ approval, now }: { approval: ApprovalRecord; now: number }) {
  if (approval.approvals.length === 0) return <Empty>No review yet: the approval is {approval.state.toLowerCase()}.</Empty>;
  return (
    <table class="reviews">
      <caption class="visually-hidden">Reviews, in the order they were given</caption>
      <thead>
        <tr>
          <th scope="col">Review</th>
          <th scope="col">By</th>
          <th scope="col">Comment</th>
          <th scope="col">When (UTC)</th>
          <th scope="col">Link</th>
          <th scope="col">Stored by</th>
        </tr>
      </thead>
      <tbody>
        {approval.approvals.map((review, i) => {
          const link = safeUrl(review.approval_url);
          return (
            <tr key={i}>
              <td>
                <ApprovalState state={review.state} />
              </td>
              <td>{review.approved_by}</td>
              <td>{review.comment || <span class="muted">none</span>}</td>
              <td>
                <Time at={review.timestamp} now={now} />
              </td>
              <td>
                {link ? (
                  <a href={link} rel="noopener noreferrer">
                    {review.approval_url}
                  </a>
                ) : review.approval_url ? (
                  <span>{review.approval_url}</span>
                ) : (
                  <span class="muted">none</span>
                )}
              </td>
              <td>{createdByName(review.createdBy) ?? <span class="muted">not recorded</span>}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Approve or reject, with a comment; the reviewer is the one signed in (the server records the session's holder). */
function ReviewForm({ action }: { action: string }) {
  return (
    <form class="review" method="post" action={action}>
      <label for="review-comment">Comment</label>
      <textarea id="review-comment" name="comment" maxlength={16384} />
      <div class="buttons">
        <button type="submit" name="state" value="APPROVED">
          Approve
        </button>
        <button type="submit" name="state" value="UNAPPROVED">
          Reject
        </button>
      </div>
    </form>
  );
}

export const approvalPage = definePage({
  path: '/:org/flows/:flow/approvals/:number',
  async render(input) {
    const { store, params, now } = input;
    const { flow } = await requireFlow(store, input.org.name, params.flow!);
    const number = /^[1-9]\d{0,8}$/.test(params.number!) ? Number(params.number) : NaN;
    const approval = Number.isInteger(number) ? await store.getApproval(flow.id, number) : undefined;
    if (!approval) throw notFound(`Flow '${flow.name}' has no approval ${params.number}.`);
    const artifacts = await store.artifactsOfCommits(input.org.id, approval.src_commit_list);
    return {
      title: `Approval #${approval.release_number} · ${flow.name}`,
      content: (
        <>
          <Crumbs input={input} flow={flow.name} tail={`#${approval.release_number}`} />
          <h1>
            Approval #{approval.release_number} of {flow.name} <ApprovalState state={approval.state} />
          </h1>
          <dl class="facts">
            <dt>Artifact</dt>
            <dd>{approval.artifact_name}</dd>
            <dt>Fingerprint</dt>
            <dd>
              <a href={artifactPageHref(input, approval.target_artifact)}>
                <code>{approval.target_artifact}</code>
              </a>
            </dd>
            <dt>Since</dt>
            <dd>
              <code>{approval.base_artifact || 'the first'}</code>
            </dd>
            <dt>Environment</dt>
            <dd>{approval.environment ? <a href={environmentPageHref(input, approval.environment)}>{approval.environment}</a> : 'any'}</dd>
            <dt>Description</dt>
            <dd>{approval.description || <span class="muted">none</span>}</dd>
            <dt>Requested</dt>
            <dd>
              <Time at={approval.created_at} now={now} /> by {createdByName(approval.createdBy) ?? 'a token not recorded'}
            </dd>
            {approval.user_data !== null ? (
              <>
                <dt>User data</dt>
                <dd>
                  <pre>{JSON.stringify(approval.user_data, null, 2)}</pre>
                </dd>
              </>
            ) : null}
          </dl>
          <h2>Reviews ({approval.approvals.length})</h2>
          <Reviews approval={approval} now={now} />
          {roleAllows(input.role, 'member') ? (
            <ReviewForm action={orgHref(input, 'flows', flow.name, 'approvals', approval.release_number, 'review')} />
          ) : (
            <p class="muted">Your role, {input.role}, reads approvals; a member or an admin reviews them.</p>
          )}
          <h2>Commits ({approval.src_commit_list.length})</h2>
          {approval.src_commit_list.length === 0 ? (
            <Empty>No commit listed.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Commit</th>
                  <th scope="col">Artifacts built from it</th>
                </tr>
              </thead>
              <tbody>
                {approval.src_commit_list.map((sha) => (
                  <tr key={sha}>
                    <td>
                      <code>{sha}</code>
                    </td>
                    <td>
                      {(artifacts.get(sha) ?? []).map((fp) => (
                        <code key={fp} title={fp}>
                          {fp.slice(0, 12)}{' '}
                        </code>
                      ))}
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
