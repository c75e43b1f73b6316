/**
 * The evidence check of `trailproof verify` (and `GET /api/v2/verify/{org}`) for the signed-in
 * organisation, run when asked: `?run=1`. A GET, since the console's only POSTs are signing in
 * and out; it only reads. It shares the API's limiter: one check per organisation at a time and
 * two per server, otherwise 429 with when to come back.
 */
import { ApiError } from '../../http/errors.ts';
import { verifyOneAtATime } from '../../operations/verify-evidence.ts';
import { Compliance } from '../components/compliance.tsx';
import { CopyButton, CopyScript } from '../components/copy.tsx';
import { orgHref } from '../links.ts';
import { auditPackageHref } from './evidence-downloads.tsx';
import { definePage } from '../page.ts';

export const integrityPage = definePage({
  path: '/:org/integrity',
  async render(input) {
    const { store, query, org } = input;
    const runHref = `${orgHref(input, 'integrity')}?run=1`;
    const intro = (
      <>
        <p class="crumbs">
          <a href={orgHref(input)}>{org.name}</a> › integrity
        </p>
        <h1>Integrity of the evidence</h1>
        <p>
          The check recomputes {org.name}'s hash chain and every row and attachment it vouches for, as <code>trailproof verify --org {org.name}</code> does on
          the server. It reads everything, so it runs only when asked.
        </p>
        <h2>Downloads for an auditor</h2>
        <p>
          <a class="download" href={orgHref(input, 'log', 'checkpoint')} download>
            Download the latest signed checkpoint
          </a>
          <a class="download" href={auditPackageHref(input, {})} download>
            Download the audit package of {org.name}
          </a>
        </p>
        <form class="filters" method="get" action={auditPackageHref(input, {})} aria-label="Audit package of a date range">
          <label>
            Evidence from (UTC date)
            <input name="since" type="date" />
          </label>
          <label>
            Until (UTC date)
            <input name="until" type="date" />
          </label>
          <button type="submit">Download the audit package of these dates</button>
        </form>
      </>
    );
    if (query.get('run') !== '1') {
      return {
        title: `Integrity · ${org.name}`,
        content: (
          <>
            {intro}
            <p>
              <a class="button" href={runHref}>
                Run the check now
              </a>
            </p>
          </>
        ),
      };
    }
    const started = Date.now();
    let result;
    try {
      result = await verifyOneAtATime(store, org.id, () => store.verifyChain(org.id, org.name));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 429) throw error;
      return {
        title: `Integrity · ${org.name}`,
        status: 429,
        content: (
          <>
            {intro}
            <p class="error-box" role="alert">
              {error.message}.
            </p>
            <p>
              <a href={runHref}>Try again</a>
            </p>
          </>
        ),
      };
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    return {
      title: `Integrity · ${org.name}`,
      content: (
        <>
          {intro}
          <h2>
            Result <Compliance compliant={result.ok} label={result.ok ? 'INTACT' : 'BROKEN'} />
          </h2>
          <p class="summary" data-testid="integrity-result">
            {result.ok
              ? `The evidence of ${org.name} is intact: ${result.records} chain records checked in ${seconds} s.`
              : `The evidence of ${org.name} is NOT intact: ${result.records} chain records checked in ${seconds} s; the first broken link is below.`}
          </p>
          {result.firstBroken ? (
            <dl class="facts">
              <dt>Record</dt>
              <dd>
                {result.firstBroken.seq} ({result.firstBroken.type}
                {result.firstBroken.ref ? `, ${result.firstBroken.ref.table} ${result.firstBroken.ref.id}` : ''})
              </dd>
              <dt>Reason</dt>
              <dd>{result.firstBroken.reason}</dd>
            </dl>
          ) : (
            <dl class="facts">
              <dt>Head of the chain</dt>
              <dd>
                <code>{result.head}</code> <CopyButton text={result.head} what="head hash" /> (publish it elsewhere to pin today's state)
              </dd>
            </dl>
          )}
          <p>
            <a href={runHref}>Run it again</a>
          </p>
          <CopyScript base={input.base} />
        </>
      ),
    };
  },
});
