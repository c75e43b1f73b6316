/**
 * README badges in the shields.io style: `GET /badges/{org}/flows/{flow}.svg` (the compliance of
 * the flow's latest trail) and `GET /badges/{org}/environments/{env}.svg` (the environment's state).
 * Without a token a flow's badge answers only where the flow's visibility is `public`, an
 * environment's only once `trailproof badge public` opted it in; a token of the organisation sees
 * its own. Everything else is the same 404 as an unknown name, so a badge URL tells nothing about
 * what exists. Drawn by badge-maker, shields.io's own renderer (Verdana text widths, `<title>`).
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { makeBadge } from 'badge-maker';
import { limits, NamePattern } from '@trailproof/schema';
import { storeTokens, type Authenticator } from '../auth.ts';
import { TrailEvaluator } from '../domain/evaluate.ts';
import { ApiError, badRequest, errorMiddleware } from '../http/errors.ts';
import { FailedAuthLimit } from '../http/failed-auth-limit.ts';
import { silentLogger, type Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';

export interface BadgeOptions {
  store: Store;
  /** Who a request's `Authorization` header belongs to; tokens in the store by default. */
  auth?: Authenticator;
  /** Path prefix of the badges; `/badges` by default. */
  prefix?: string;
  logger?: Logger;
  /** The table of failed token checks, shared with the API by `createApp`; one of the badges' own by default. */
  failedAuthLimit?: FailedAuthLimit;
}

const styles = ['flat', 'flat-square', 'plastic', 'for-the-badge'] as const;
type Style = (typeof styles)[number];

const colours = { compliant: 'brightgreen', 'non-compliant': 'red', none: 'lightgrey' } as const;

/** What a badge says: its label, its message and how the message is coloured. */
interface BadgeText {
  label: string;
  message: string;
  colour: keyof typeof colours;
}

/** Badges have one answer for "no such name", "not public" and "not yours". */
const noBadge = () => new ApiError(404, 'No such badge');

const namePattern = new RegExp(NamePattern);
const isName = (name: string) => name.length <= limits.name && namePattern.test(name);

/** The badges' router, mounted by `createApp` beside the API and the console. */
export function createBadges(options: BadgeOptions): Router {
  const { store, prefix = '/badges' } = options;
  const auth = options.auth ?? storeTokens(store);
  const limit = options.failedAuthLimit ?? new FailedAuthLimit();
  const router = new Router({ prefix });
  router.use(errorMiddleware(options.logger ?? silentLogger));

  /** The organisation's id when it exists; `mayRead`: whether the request's token belongs to it. */
  async function organizationOf(ctx: Context, org: string): Promise<{ id: number; mayRead: () => Promise<boolean> }> {
    const organization = isName(org) ? await store.findOrganization(org) : undefined;
    if (!organization) throw noBadge();
    const mayRead = async () => {
      if (!ctx.get('authorization')) return false;
      // An expired or malformed token reads no more than none: the badge answers the same 404.
      // Too many failures from the address answer 429, as the API does.
      const principal = await limit.authenticate(ctx, auth, ctx.get('authorization')).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 429) throw error;
        return null;
      });
      return principal?.org === org;
    };
    return { id: Number(organization.id), mayRead };
  }

  router.get('/:org/flows/:file', async (ctx) => {
    const style = styleOf(ctx);
    const name = svgName(ctx.params.file!);
    const organization = await organizationOf(ctx, ctx.params.org!);
    const flow = name === undefined ? undefined : await store.getFlowRecord(organization.id, name);
    if (!flow) throw noBadge();
    const isPublic = flow.visibility === 'public';
    if (!isPublic && !(await organization.mayRead())) throw noBadge();
    const { items } = await store.listTrailPage(flow.id, 0, 1);
    const [latest] = items.length ? await new TrailEvaluator(store, Date.now() / 1000).complianceOf(items) : [];
    const text: BadgeText =
      latest === undefined
        ? { label: flow.name, message: 'no trails', colour: 'none' }
        : latest.compliance.is_compliant
          ? { label: flow.name, message: 'compliant', colour: 'compliant' }
          : { label: flow.name, message: 'non-compliant', colour: 'non-compliant' };
    answer(ctx, text, style, isPublic);
  });

  router.get('/:org/environments/:file', async (ctx) => {
    const style = styleOf(ctx);
    const name = svgName(ctx.params.file!);
    const organization = await organizationOf(ctx, ctx.params.org!);
    const environment = name === undefined ? undefined : await store.findEnvironmentBadge(organization.id, name);
    if (!environment || name === undefined) throw noBadge();
    if (!environment.public && !(await organization.mayRead())) throw noBadge();
    const text: BadgeText =
      environment.state === null
        ? { label: name, message: 'not reported', colour: 'none' }
        : environment.state
          ? { label: name, message: 'compliant', colour: 'compliant' }
          : { label: name, message: 'non-compliant', colour: 'non-compliant' };
    answer(ctx, text, style, environment.public);
  });
  return router;
}

/** `name.svg` → `name` when that is a name the API takes; undefined otherwise. */
function svgName(file: string): string | undefined {
  const name = file.endsWith('.svg') ? file.slice(0, -4) : undefined;
  return name !== undefined && isName(name) ? name : undefined;
}

function styleOf(ctx: Context): Style {
  const style = ctx.query.style;
  if (style === undefined) return 'flat';
  if (typeof style === 'string' && (styles as readonly string[]).includes(style)) return style as Style;
  throw badRequest(`style must be one of ${styles.join(', ')}`, { style: `one of ${styles.join(', ')}` });
}

/**
 * The badge as `image/svg+xml`: cached a minute (by anyone when public, by the browser alone when
 * a token was needed), never sniffed, and with a policy that lets the SVG run nothing if opened.
 */
function answer(ctx: Context, text: BadgeText, style: Style, isPublic: boolean): void {
  ctx.set('Cache-Control', `${isPublic ? 'public' : 'private'}, max-age=60`);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
  ctx.type = 'image/svg+xml';
  ctx.body = makeBadge({ label: text.label, message: text.message, color: colours[text.colour], style });
}
