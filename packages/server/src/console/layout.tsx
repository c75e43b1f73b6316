/**
 * The document shell of every console page: a stylesheet (no inline style or script, so the
 * Content-Security-Policy can forbid both), the navigation of the signed-in organisation and a
 * sign-out form that works without scripts.
 */
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';
import { consoleCssVersion } from './static.ts';

/** The most characters the search box takes: a SHA-256 fingerprint is 64, a commit SHA 40 (or 64). */
export const searchMaxLength = 64;

export interface LayoutProps {
  title: string;
  /** The console's path as the browser sees it. */
  base: string;
  /** The signed-in organisation; none on the sign-in page. */
  org?: string;
  /** Who is signed in and at which role. */
  viewer?: { name: string; role: string };
  children: ComponentChildren;
}

export function Layout({ title, base, org, viewer, children }: LayoutProps) {
  const home = org ? `${base}/${encodeURIComponent(org)}` : `${base}/sign-in`;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Trailproof`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={`${base}/static/console.css?v=${consoleCssVersion}`} />
      </head>
      <body>
        <header class="top">
          <a class="brand" href={home}>
            Trailproof
          </a>
          {org ? (
            <nav aria-label="Organisation">
              <a href={home}>{org}</a>
              <a href={`${home}/trails`}>Trails</a>
              <a href={`${home}/environments`}>Environments</a>
              <a href={`${home}/deployments`}>Deployments</a>
              <a href={`${home}/integrity`}>Integrity</a>
              <a href={`${home}/policies`}>Policies</a>
              <a href={`${home}/verdicts`}>Verdicts</a>
              {viewer?.role === 'admin' ? <a href={`${home}/people`}>People</a> : null}
            </nav>
          ) : (
            <nav aria-label="Console" />
          )}
          {org ? (
            <form class="search" aria-label="Search" method="get" action={`${home}/search`}>
              <label class="visually-hidden" for="search">
                Find a trail by name, or a trail or an artifact by commit SHA or fingerprint
              </label>
              <input
                id="search"
                name="q"
                type="search"
                maxlength={searchMaxLength}
                placeholder="Trail, commit or fingerprint"
                autocomplete="off"
                spellcheck={false}
              />
            </form>
          ) : null}
          {viewer ? (
            <p class="viewer">
              <span class="who" title={viewer.name}>
                {viewer.name}
              </span>{' '}
              <span class="role">{viewer.role}</span>
            </p>
          ) : null}
          {org ? (
            <form method="post" action={`${base}/sign-out`}>
              <button type="submit">Sign out</button>
            </form>
          ) : null}
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}

/** The whole document as HTML text. */
export const renderDocument = (page: VNode) => `<!doctype html>${render(page)}`;

/** A character no title or page holds (the renderer writes it as is), to cut a rendered shell at. */
const hole = '\u0000';
/** Layouts rendered once per console path and organisation: before the title, between title and content, after. */
const shells = new Map<string, string[]>();

/**
 * The document of a page: the same as `renderDocument(Layout(...))`, with the layout rendered
 * once per console path and organisation (escaped then) and only the title and content per page.
 */
export function renderPage({ title, base, org, viewer }: Omit<LayoutProps, 'children'>, content: ComponentChildren): string {
  const key = JSON.stringify([base, org ?? '', viewer?.name ?? '', viewer?.role ?? '']);
  let shell = shells.get(key);
  if (!shell) {
    shell = renderDocument(Layout({ title: hole, base, org, viewer, children: hole })).split(hole);
    if (shell.length !== 3) return renderDocument(Layout({ title, base, org, viewer, children: content }));
    if (shells.size >= 256) shells.clear();
    shells.set(key, shell);
  }
  return `${shell[0]}${render(<>{title}</>)}${shell[1]}${render(<>{content}</>)}${shell[2]}`;
}
