/**
 * A fleet of images for the 1,000-pod snapshot test and benchmark: image k, its fingerprint and
 * commit, and the artifact trail `t{k mod trails}` of flow `fleet` reports for it.
 */
import { createHash } from 'node:crypto';
import type { Store } from '@trailproof/server';

type ArtifactAppend = Parameters<Store['appendArtifact']>[0];

export const fleetImage = (k: number) => `img-${k}:1`;
export const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');
export const commitOf = (k: number) => createHash('sha1').update(String(k)).digest('hex');

/** The artifact of image k as `kosli attest artifact` would have stored it on trail `t{k mod trails}`. */
export function fleetArtifact(organizationId: number, k: number, trails: number): ArtifactAppend {
  return {
    organizationId,
    flow: 'fleet',
    trail: `t${k % trails}`,
    fingerprint: sha256Of(fleetImage(k)),
    filename: fleetImage(k),
    templateReferenceName: 'app',
    gitCommit: commitOf(k),
    gitCommitInfo: null,
    repoInfo: null,
    buildUrl: `https://ci.example/${k}`,
    commitUrl: `https://git.example/acme/fleet/commit/${commitOf(k)}`,
    repoUrl: null,
    externalUrls: null,
    annotations: null,
    createdBy: null,
    at: 1_763_000_000,
  };
}

/** A named image as the policy tests run it: under the registry's name, its fingerprint the SHA-256 of the short name. */
export const registryImage = (name: string) => `registry.acme.example/${name}`;

/** A K8S pod running that image, as `kosli snapshot k8s` reports it. */
export const registryPod = (podName: string, name: string) => ({
  podName,
  namespace: 'shop',
  digests: { [registryImage(name)]: sha256Of(name) },
  creationTimestamp: 1_763_000_000,
});

/** The body `kosli attest artifact` sends for that image, reported in trail `trail` as template artifact `app`. */
export const registryArtifact = (name: string, trail: string) => ({
  fingerprint: sha256Of(name),
  filename: registryImage(name),
  git_commit: 'c'.repeat(40),
  build_url: 'https://ci.example/1',
  commit_url: '',
  template_reference_name: 'app',
  trail_name: trail,
});
