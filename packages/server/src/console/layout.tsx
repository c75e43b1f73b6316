/**
 * The document shell of every console page: a stylesheet (no inline style or script, so the
 * Content-Security-Policy can forbid both), the navigation of the signed-in organisation and a
 * sign-out form that works without scripts.
 */
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';
import { consoleCssVersion } from './static.ts';

export interface LayoutProps {
  title: string;
  /** The console's path as the browser sees it. */
  base: string;
  /** The signed-in organisation; none on the sign-in page. */
  org?: string;
  children: ComponentChildren;
}

export function Layout({ title, base, org, children }: LayoutProps) {
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
              <a href={`${home}/deployments`}>Deployments</a>
              <a href={`${home}/integrity`}>Integrity</a>
            </nav>
          ) : (
            <nav aria-label="Console" />
          )}
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
