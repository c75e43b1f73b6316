/**
 * @trailproof/server: the API v2 as a small Koa plugin framework.
 *
 * - `createRouter({ store, auth, plugins, prefix })`: a @koa/router to mount in any Koa app.
 * - `createApp(options)`: the standalone app (logging, JSON 404/405).
 * - `definePlugin({ operation, handler })`: add an operation without touching the core.
 * - `openSqliteStore(file)`: the default storage.
 */
export { createRouter, DuplicateOperationError, type RouterOptions } from './router.ts';
export type { HealthCheckOptions } from './http/health.ts';
export { createApp, type AppOptions } from './app.ts';
export { definePlugin, type HandlerInput, type HandlerResult, type Plugin, type UploadedFile } from './plugin.ts';
export { ApiError, badRequest, isDatabaseUnavailable, notFound } from './http/errors.ts';
export { environmentHref, pageBody, pageCount, pageLinks, pathOf, trailHref, type PageFigures, type PageLinks, type ViewContext } from './http/links.ts';
export { createToken, storeTokens, type Authenticator, type Principal } from './auth.ts';
export { createStore, isPostgresUrl, openPostgresStore, openSqliteStore, openStore, type Queries, type Store } from './store/index.ts';
export type * from './store/index.ts';
export { sqliteDriver, type SqliteDriver } from './store/sqlite/driver.ts';
export { jsonLogger, silentLogger, type Logger } from './log.ts';
export { defaultPlugins } from './operations/index.ts';
export * from './operations/index.ts';
export { requireFlow, requireOrganization, requireTrail } from './operations/lookup.ts';
export { storeAttestation, type AttestationToStore } from './operations/attest.ts';
export { startServer, type RunningServer, type ServerOptions } from './server.ts';
export { parseTemplate, TemplateError, type TemplateModel } from './domain/template.ts';
export { evaluateCompliance, type AttestationFacts, type ComplianceStatus } from './domain/compliance.ts';
