/** Compliance shown as a word and a mark, with colour only as a help: never colour alone. */
import type { ArtifactState } from '../../domain/artifact-state.ts';
import { html, type Markup } from '../markup.ts';

export function Compliance({ compliant, label }: { compliant: boolean | null | undefined; label?: string }) {
  if (compliant === null || compliant === undefined) return <span class="badge none">– {label ?? 'NO TRAIL'}</span>;
  return compliant ? <span class="badge ok">✓ {label ?? 'COMPLIANT'}</span> : <span class="badge bad">✗ {label ?? 'NON-COMPLIANT'}</span>;
}

/** `Compliance` as markup (markup.ts), for the rows of long tables: the same HTML. */
export function complianceMarkup(compliant: boolean | null | undefined, label?: string): Markup {
  if (compliant === null || compliant === undefined) return html`<span class="badge none">– ${label ?? 'NO TRAIL'}</span>`;
  return compliant ? html`<span class="badge ok">✓ ${label ?? 'COMPLIANT'}</span>` : html`<span class="badge bad">✗ ${label ?? 'NON-COMPLIANT'}</span>`;
}

/** An artifact's state as Kosli shows it (COMPLIANT, NON-COMPLIANT, INCOMPLETE); null: never reported by a flow. */
export function StateBadge({ state }: { state: ArtifactState | null }) {
  if (state === 'INCOMPLETE') return <span class="badge warn">… INCOMPLETE</span>;
  return <Compliance compliant={state === null ? null : state === 'COMPLIANT'} label={state ?? 'NOT REPORTED'} />;
}
