/** Compliance shown as a word and a mark, with colour only as a help: never colour alone. */

export function Compliance({ compliant, label }: { compliant: boolean | null | undefined; label?: string }) {
  if (compliant === null || compliant === undefined) return <span class="badge none">– {label ?? 'NO TRAIL'}</span>;
  return compliant ? <span class="badge ok">✓ {label ?? 'COMPLIANT'}</span> : <span class="badge bad">✗ {label ?? 'NON-COMPLIANT'}</span>;
}
