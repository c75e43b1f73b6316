/**
 * @trailproof/server: the API v2 as a small Koa plugin framework. Fifteen values, each named
 * below and in the package README (public-entries.test.ts keeps the list):
 *
 * - `createRouter({ store, auth, plugins, prefix })`: a @koa/router to mount in any Koa app; two
 *   plugins for one route fail at start-up with `DuplicateOperationError`, a plugin declaring
 *   what it may not have with `StoreDeclarationError` (plugin-kit).
 * - `createApp(options)`: the standalone Koa app (request ids, logging, probes, JSON 404/405);
 *   `startServer(options)` listens with it.
 * - `definePlugin({ operation, store, transaction, handler })`: an operation added without
 *   touching the core, its handler handed the part of the store the plugin declares and nothing
 *   else; `defaultPlugins` are the API's own. Errors meant for the client are thrown `ApiError`s.
 * - `openStore(location)`: a SQLite file path or a `postgres://` URL (`openSqliteStore`,
 *   `openPostgresStore`), migrated and ready; `Store` is what plugins declare their part of. A
 *   SQLite store needs a file (`:memory:` throws `InMemoryDatabaseError`).
 * - `createConsole({ store, prefix })`: the console's pages as a @koa/router (`createApp` mounts it at `/ui`).
 *   Each page declares the part of the store it reads, as plugins do.
 * - `createToken(store, org, ...)`: an API token (the secret is shown once, stored hashed).
 * - `createLogger` (pino, `LOG_LEVEL`) / `silentLogger`: loggers for `createApp`.
 *
 * What plugin authors need beyond `definePlugin` (lookups and what they use of the store, page
 * links, views, the store's records, the API's own plugins by name) is in `@trailproof/server/plugin-kit`.
 */
export { createRouter, DuplicateOperationError, type RouterOptions } from './router.ts';
export { createApp, type AppOptions } from './app.ts';
export { createConsole, type ConsoleOptions } from './console/index.ts';
export { startServer, type RunningServer, type ServerOptions } from './server.ts';
export { definePlugin, type Plugin } from './plugin.ts';
export { defaultPlugins } from './operations/index.ts';
export { ApiError } from './http/errors.ts';
export type { HealthCheckOptions } from './http/health.ts';
export { InMemoryDatabaseError, openPostgresStore, openSqliteStore, openStore, type PostgresOptions, type SqliteOptions, type Store } from './store/index.ts';
export { createToken, type Authenticator, type Principal } from './auth.ts';
export { createLogger, silentLogger, type Logger, type LoggerLevel, type LoggerOptions, type LogLevel } from './logger.ts';
