/**
 * One leaf of the organisation's transparency log: the chain record it is (its text, whose UTF-8
 * bytes are hashed), its leaf hash and its RFC 9162 inclusion proof in the latest signed
 * checkpoint, with that checkpoint's note, so a person can check by hand, or with any RFC 9162
 * verifier, that the record is in the log the server signed. A leaf newer than the latest
 * checkpoint is proved in the tree as it is now, and the page says it is not signed yet.
 */
import { notFound } from '../../http/errors.ts';
import { encodeProof, leafHash } from '../../transparency/index.ts';
import { orgHref } from '../links.ts';
import { definePage, type PageInput } from '../page.ts';

async function readLeaf(input: PageInput) {
  const { store, org, params } = input;
  const index = Number(params.index);
  const [size, checkpoint] = await Promise.all([store.logSize(org.id), store.latestCheckpoint(org.id)]);
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw notFound(`The log of '${org.name}' has no leaf '${params.index}' (it has ${size})`);
  const signed = checkpoint !== undefined && checkpoint.treeSize > index;
  const treeSize = signed ? checkpoint.treeSize : size;
  const [proof, [leaf]] = await Promise.all([store.inclusionProofOf(org.id, index, treeSize), store.logLeaves(org.id, index, 1)]);
  return { index, treeSize, leaf: leaf!.leaf, proof: encodeProof(proof), checkpoint: signed ? checkpoint : undefined };
}

export const logEntryPage = definePage({
  path: '/:org/log/:index',
  async render(input) {
    const { org, apiBase } = input;
    const { index, treeSize, leaf, proof, checkpoint } = await readLeaf(input);
    let record = leaf;
    try {
      record = JSON.stringify(JSON.parse(leaf), null, 2);
    } catch {
      // A leaf is canonical JSON; were it not, its text is shown as it is.
    }
    return {
      title: `Log #${index} · ${org.name}`,
      content: (
        <>
          <p class="crumbs">
            <a href={orgHref(input)}>{org.name}</a> › log
          </p>
          <h1>Log leaf #{index}</h1>
          <dl class="facts">
            <dt>Leaf hash</dt>
            <dd>
              <code data-testid="leaf-hash">{leafHash(Buffer.from(leaf, 'utf8')).toString('base64')}</code> (SHA-256 of 0x00 and the record's UTF-8 bytes,
              base64)
            </dd>
            <dt>Proved in</dt>
            <dd data-testid="proved-in">
              {checkpoint ? `the signed checkpoint of ${treeSize} leaves` : `the tree of ${treeSize} leaves as it is now (not in a signed checkpoint yet)`}
            </dd>
          </dl>
          <h2>Record</h2>
          <pre class="log-record" data-testid="log-record">
            {record}
          </pre>
          <h2>Inclusion proof ({proof.length} hashes)</h2>
          <ol class="proof" data-testid="proof">
            {proof.map((hash) => (
              <li>
                <code>{hash}</code>
              </li>
            ))}
          </ol>
          {checkpoint ? (
            <>
              <h2>Signed checkpoint</h2>
              <pre class="checkpoint">{checkpoint.note}</pre>
            </>
          ) : null}
          <p>
            The same from the API:{' '}
            <code>{`curl -H "Authorization: Bearer $TOKEN" '${apiBase}/log/${org.name}/proof/inclusion?index=${index}&tree_size=${treeSize}'`}</code>
          </p>
        </>
      ),
    };
  },
});
