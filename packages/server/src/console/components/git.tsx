/** Git and repository facts as evidence carries them: free-form objects whose URLs are links only when http(s). */
import type { ComponentChildren } from 'preact';
import { safeUrl } from '../links.ts';
import { html, type Markup } from '../markup.ts';

type Facts = Record<string, unknown> | null | undefined;

const text = (value: unknown) => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

/** A link when `href` is an http(s) URL; its children as plain text otherwise. */
export function MaybeLink({ href, children }: { href: unknown; children: ComponentChildren }) {
  const url = safeUrl(href);
  return url ? (
    <a href={url} rel="noreferrer noopener">
      {children}
    </a>
  ) : (
    children
  );
}

/** The commit's short SHA, linked to its page when the evidence gives one. */
export function Commit({ info }: { info: Facts }) {
  const sha = text(info?.sha1);
  if (!sha) return <span class="muted">–</span>;
  return (
    <span class="mono" title={sha}>
      <MaybeLink href={info?.url}>{sha.slice(0, 7)}</MaybeLink>
    </span>
  );
}

/** `Commit` as markup (markup.ts), for the rows of long tables: the same HTML. */
export function commitMarkup(info: Facts): Markup {
  const sha = text(info?.sha1);
  if (!sha) return html`<span class="muted">–</span>`;
  const url = safeUrl(info?.url);
  const short = sha.slice(0, 7);
  return html`<span class="mono" title="${sha}">${url ? html`<a href="${url}" rel="noreferrer noopener">${short}</a>` : short}</span>`;
}

/** Every field of a facts object as a definition list; URLs linked when safe, other values as text. */
export function Facts({ facts }: { facts: Facts }) {
  if (!facts || !Object.keys(facts).length) return <p class="muted">None recorded.</p>;
  return (
    <dl class="facts">
      {Object.entries(facts).map(([key, value]) => (
        <>
          <dt>{key}</dt>
          <dd>{/url$/i.test(key) ? <MaybeLink href={value}>{text(value)}</MaybeLink> : text(value)}</dd>
        </>
      ))}
    </dl>
  );
}

export { text as factText };
