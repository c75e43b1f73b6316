/**
 * The console's one stylesheet, served from `/ui/static/console.css`. Kept in a module (not a
 * .css file) so the built package and any bundle carry it without a copy step; its hash is in
 * the link so browsers may cache it for good.
 */
import { createHash } from 'node:crypto';

export const consoleCss = `
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --panel: #f6f8fa; --link: #0550ae;
  --ok: #116329; --ok-bg: #dafbe1; --bad: #a40e26; --bad-bg: #ffebe9; --warn: #7d4e00; --warn-bg: #fff8c5;
  --top: #24292f; --top-fg: #ffffff; --top-line: #8c959f; --go: #1f883d; --go-fg: #ffffff; --focus: #0969da; color-scheme: light dark; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9da7b3; --line: #3d444d; --bg: #0d1117; --panel: #161b22; --link: #6cb6ff;
    --ok: #56d364; --ok-bg: #12261e; --bad: #ff8e8e; --bad-bg: #2d1316; --warn: #e3b341; --warn-bg: #2a2111;
    --top: #010409; --top-fg: #f0f6fc; --top-line: #6e7681; --go: #1f883d; --go-fg: #ffffff; --focus: #58a6ff; }
  /* The charts draw their own light colours: they keep a light ground to stay legible. */
  .chart svg { background: #ffffff; border-radius: 6px; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
header.top { display: flex; gap: .8rem; align-items: center; padding: .6rem 1.5rem; background: var(--top); color: var(--top-fg); flex-wrap: wrap; }
header.top a { color: var(--top-fg); text-decoration: none; }
header.top a:hover { text-decoration: underline; }
header.top .brand { font-weight: 700; }
header.top nav { display: flex; gap: .8rem; flex: 1; flex-wrap: wrap; }
header.top form { margin: 0; display: flex; gap: .5rem; align-items: center; }
header.top button { background: transparent; color: var(--top-fg); border: 1px solid var(--top-line); border-radius: 6px; padding: .2rem .7rem; cursor: pointer; }
main { padding: 1rem 1.5rem 3rem; max-width: 1200px; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; word-break: break-word; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 .5rem; }
.crumbs { color: var(--muted); font-size: .9rem; margin-top: .5rem; }
.crumbs a { color: var(--muted); }
.summary { padding: .6rem .9rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; margin: .4rem 0; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; font-size: .93rem; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); font-weight: 600; white-space: nowrap; }
th a { color: inherit; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
.badge { display: inline-block; border-radius: 1em; padding: 0 .6em; font-size: .82rem; font-weight: 600; white-space: nowrap; border: 1px solid currentColor; }
.badge.ok { color: var(--ok); background: var(--ok-bg); }
.badge.bad { color: var(--bad); background: var(--bad-bg); }
.badge.none { color: var(--muted); background: var(--panel); }
.badge.warn { color: var(--warn); background: var(--warn-bg); }
.muted, .rel { color: var(--muted); }
.rel { font-size: .85em; }
.empty { border: 1px dashed var(--line); border-radius: 6px; padding: .75rem 1rem; color: var(--muted); }
.empty pre { color: var(--fg); }
.reasons li { margin: .2rem 0; }
.failed { color: var(--bad); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .5rem 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; word-break: break-word; }
.pager { display: flex; gap: 1rem; align-items: center; margin: .5rem 0; }
.error-box { border: 1px solid var(--bad); background: var(--bad-bg); color: var(--bad); padding: .6rem .9rem; border-radius: 6px; }
form.sign-in { max-width: 32rem; display: grid; gap: .6rem; }
form.sign-in input { font: inherit; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: 6px; }
form.sign-in button { font: inherit; padding: .45rem .9rem; border: 0; border-radius: 6px; background: var(--go); color: var(--go-fg); cursor: pointer; justify-self: start; }
.chart svg { max-width: 100%; height: auto; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin: .5rem 0; }
form.filters label { display: grid; gap: .15rem; font-size: .85rem; color: var(--muted); }
form.filters input, form.filters select, form.filters button { font: inherit; padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 6px; }
form.filters button, a.button { background: var(--go); color: var(--go-fg); border: 0; border-radius: 6px; padding: .4rem .9rem; text-decoration: none; display: inline-block; }
code.fingerprint { word-break: break-all; }
header.top form.search input { font: inherit; width: 12rem; max-width: 50vw; padding: .2rem .5rem; border: 1px solid var(--top-line); border-radius: 6px; }
header.top .viewer { margin: 0; font-size: .9rem; }
/* A long name is cut (it is whole on hover), so that the navigation keeps its one line on a desktop. */
header.top .viewer .who { display: inline-block; vertical-align: bottom; max-width: 9rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
header.top .viewer .role { border: 1px solid var(--top-line); border-radius: 6px; padding: 0 .4rem; margin-left: .3rem; }
form.review { display: grid; gap: .5rem; max-width: 40rem; margin: 1rem 0; }
form.review textarea { font: inherit; min-height: 4rem; }
form.review .buttons { display: flex; gap: .5rem; }
button.copy { font: inherit; font-size: .8rem; margin-left: .4rem; padding: 0 .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); cursor: pointer; }
.kind { margin: .4rem 0; }
.kind ul { margin: .2rem 0; padding-left: 1.2rem; }
.why { color: var(--bad); font-weight: 600; }
[dir=auto] { unicode-bidi: isolate; }
table.wrap td, .crumbs { overflow-wrap: anywhere; }
input, select, button { color: var(--fg); background: var(--bg); }
.table-box { overflow-x: auto; max-width: 100%; }
a.download { margin-right: 1rem; }
/* A phone (390 px): the navigation is one line that scrolls sideways, search takes the whole width, a table scrolls inside its own box. */
@media (max-width: 640px) {
  header.top { gap: .4rem .8rem; padding: .5rem .75rem; }
  header.top nav { order: 3; flex: 1 0 100%; flex-wrap: nowrap; overflow-x: auto; gap: .9rem; padding-bottom: .15rem; }
  header.top nav a { white-space: nowrap; }
  header.top form.search { order: 4; flex: 1 0 100%; }
  header.top form.search input { width: 100%; max-width: none; }
  main { padding: .75rem .75rem 2rem; }
  main table { display: block; overflow-x: auto; max-width: 100%; }
  /* Headers and long values wrap, so most tables fit the phone and only the widest scroll. */
  th { white-space: normal; }
  th, td { padding: .3rem .4rem; overflow-wrap: anywhere; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .3rem; }
  pre { max-width: 100%; }
  form.filters label, form.filters input, form.filters select { width: 100%; }
}
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/**
 * The console's one script, served from `/ui/static/console.js` (the Content-Security-Policy
 * allows no inline script): a button with `data-copy` copies that text. Pages work without it.
 */
export const consoleJs = `document.addEventListener('click', function (event) {
  var button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button || !navigator.clipboard) return;
  navigator.clipboard.writeText(button.getAttribute('data-copy') || '').then(function () {
    button.textContent = 'Copied';
  }, function () {
    button.textContent = 'Copy failed';
  });
});
`;

/** The script's address with its content hash. */
export const consoleJsVersion = createHash('sha256').update(consoleJs).digest('hex').slice(0, 12);

/** The stylesheet's address with its content hash, so that a changed one is fetched anew. */
export const consoleCssVersion = createHash('sha256').update(consoleCss).digest('hex').slice(0, 12);
