/** A control as `kosli get control` and `list controls` print it, with the policies whose latest version names it. */
import { createdByName } from '../domain/created-by.ts';
import { parsePolicy } from '../domain/policy.ts';
import type { ControlRecord, PolicyRecord } from '../store/types.ts';

/** Per control identifier, the policies whose latest version has a `for_control` rule naming it. */
export function policiesByControl(policies: readonly PolicyRecord[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const policy of policies) {
    const latest = policy.versions.at(-1);
    if (!latest) continue;
    let controls: Set<string>;
    try {
      controls = new Set(parsePolicy(latest.policy_yaml).artifacts.attestations.flatMap((r) => (r.for_control ? [r.for_control] : [])));
    } catch {
      continue; // Stored versions were valid when stored; one the parser no longer takes names no control.
    }
    for (const control of controls) out.set(control, [...(out.get(control) ?? []), policy.name]);
  }
  return out;
}

export const controlView = (c: ControlRecord, referencing: ReadonlyMap<string, string[]>) => ({
  identifier: c.identifier,
  name: c.name,
  description: c.description,
  version: 1,
  archived: false,
  created_by: createdByName(c.createdBy),
  created_at: c.createdAt,
  tags: {},
  policies_referencing: referencing.get(c.identifier) ?? [],
});
