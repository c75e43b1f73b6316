/**
 * Lookups shared by the operations, each failing with the 404 the client should see. Each has a
 * list of the queries it uses, for a plugin's `store` list (`store: [...requireFlowUses, 'listTrailPage']`).
 */
import { notFound } from '../http/errors.ts';
import type { StoreUses } from '../store/types.ts';

export const requireOrganizationUses = ['findOrganization'] as const;
export const requireFlowUses = [...requireOrganizationUses, 'findFlow'] as const;
export const requireEnvironmentUses = [...requireOrganizationUses, 'findEnvironment'] as const;
export const requireTrailUses = [...requireFlowUses, 'findTrail'] as const;

export async function requireOrganization(store: StoreUses<typeof requireOrganizationUses>, name: string) {
  const organization = await store.findOrganization(name);
  if (!organization) throw notFound(`Organization '${name}' not found`);
  return { id: Number(organization.id), name: organization.name };
}

export async function requireFlow(store: StoreUses<typeof requireFlowUses>, org: string, flow: string) {
  const organization = await requireOrganization(store, org);
  const found = await store.findFlow(organization.id, flow);
  if (!found) throw notFound(`Flow '${flow}' not found in organization '${org}'`);
  return { organization, flow: found };
}

export async function requireEnvironment(store: StoreUses<typeof requireEnvironmentUses>, org: string, name: string) {
  const organization = await requireOrganization(store, org);
  const environment = await store.findEnvironment(organization.id, org, name);
  if (!environment) throw notFound(`Environment '${name}' not found in organization '${org}'`);
  return { organization, environment };
}

export async function requireTrail(store: StoreUses<typeof requireTrailUses>, org: string, flow: string, trail: string) {
  const organization = await requireOrganization(store, org);
  if (!(await store.findFlow(organization.id, flow))) throw trailNotFound(org, flow, trail, 'flow');
  const found = await store.findTrail(organization.id, flow, trail);
  if (!found) throw trailNotFound(org, flow, trail, 'trail');
  return { organization, trail: found };
}

/** The 404 for a trail that does not exist, saying to begin it first. */
export function trailNotFound(org: string, flow: string, trail: string, missing: 'flow' | 'trail') {
  const hint = `begin the trail first (PUT /trails/${org}/${flow})`;
  // Beginning a trail creates its flow, so a missing flow gets the same advice as a missing trail.
  return notFound(missing === 'flow' ? `Flow '${flow}' not found in organization '${org}': ${hint}` : `Trail '${trail}' not found in flow '${flow}': ${hint}`);
}
