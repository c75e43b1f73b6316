import { getArtifactAttestation } from '@trailproof/schema';
import { notFound } from '../http/errors.ts';
import { definePlugin } from '../plugin.ts';
import { targetArtifactsOf } from '../store/queries/attestation-facts.ts';
import type { AttestationRow } from '../store/types.ts';
import { findFlowArtifacts, findFlowArtifactsUses } from './artifact-lookup.ts';
import { attestationDetails, attestationDetailsUses } from './attestation-details.ts';

/** Newest attestations of the name read in each trail (as the trail read: a name attested on every run grows without bound). */
const maxNamed = 100;

/**
 * GET /attestations/{org}/{flow_name}/artifact/{fingerprint}/{attestation_name}: in each trail of
 * the flow the artifact was reported to, or attested to by its fingerprint alone, the attestations
 * of the name that are about it (its fingerprint, or its template name as a target), oldest first.
 */
export const getArtifactAttestationPlugin = definePlugin({
  operation: getArtifactAttestation,
  store: [...findFlowArtifactsUses, ...attestationDetailsUses, 'attestationsOfFingerprints', 'attestationsNamed'],
  async handler({ params, store, apiBase }) {
    const { organization, rows } = await findFlowArtifacts(store, params, { key: 'fingerprint', prefix: params.fingerprint });
    const trails = new Map<number, { trail: string; names: Set<string> }>();
    for (const r of rows.filter((r) => r.fingerprint === params.fingerprint)) {
      if (!trails.has(r.trailId)) trails.set(r.trailId, { trail: r.trailName, names: new Set() });
      trails.get(r.trailId)!.names.add(r.templateReferenceName);
    }
    for (const a of await store.attestationsOfFingerprints(organization.id, [params.fingerprint])) {
      if (a.flowName === params.flow_name && !trails.has(a.trailId)) trails.set(a.trailId, { trail: a.trailName, names: new Set() });
    }
    const about = (a: AttestationRow, names: Set<string>) =>
      a.artifactFingerprint === params.fingerprint || targetArtifactsOf(a.data).some((t) => names.has(t));
    const answer = [];
    for (const [trailId, { trail, names }] of [...trails].sort(([x], [y]) => x - y)) {
      const named = (await store.attestationsNamed(trailId, params.attestation_name, maxNamed)).filter((a) => about(a, names));
      if (named.length)
        answer.push(...(await attestationDetails(store, organization.id, { trailId, flow: params.flow_name, trail }, named, { org: params.org, apiBase })));
    }
    if (!answer.length) throw notFound(`Attestation '${params.attestation_name}' not found for artifact '${params.fingerprint}' in flow '${params.flow_name}'`);
    return { status: 200, body: answer };
  },
});
