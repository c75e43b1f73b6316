/** What every kind's view (attestation-kinds.tsx, evidence-kinds.tsx) is made of: its input, its two answers, and readers of untyped stored data. */
import type { VNode } from 'preact';
import type { AttestationRow } from '../../store/types.ts';
import { safeUrl } from '../links.ts';

/** What a kind's view reads: the stored attestation, and the request time for its dates. */
export interface KindInput {
  a: Pick<AttestationRow, 'type' | 'data' | 'compliant'>;
  now: number;
}

export interface AttestationKind {
  /** What it attests, in a person's words; null when the common fields say it all. */
  details(input: KindInput): VNode | null;
  /** Why it is not compliant (asked only of a non-compliant one). */
  why(input: KindInput): string;
}

/** Readers of stored JSON whose shape the page cannot trust: anything else reads as empty. */
export const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
export const str = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

/** A link only for an http(s) URL; anything else stays text. */
export function ExternalLink({ href, children }: { href: unknown; children: string }) {
  const url = safeUrl(href);
  return url ? (
    <a href={url} rel="noreferrer noopener">
      <bdi>{children}</bdi>
    </a>
  ) : (
    <bdi>{children}</bdi>
  );
}
