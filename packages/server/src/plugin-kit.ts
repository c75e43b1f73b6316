/**
 * `@trailproof/server/plugin-kit`: what a plugin's handler uses besides `definePlugin`.
 *
 * - Handler types: `HandlerInput`, `HandlerResult`, `UploadedFile`; what a plugin declares of the
 *   store (`StoreDeclaration`: its handler's `store` has those members and nothing else).
 * - Errors for the client: `ApiError`, `badRequest`, `notFound`; `isDatabaseUnavailable` for a
 *   store failure that may pass.
 * - Lookups that answer 404 in the API's words: `requireOrganization`, `requireFlow`, `requireTrail`,
 *   each with the list of what it uses (`requireFlowUses`, ...) for the plugin's `store` list.
 * - Storing an attestation as the built-in types do: `storeAttestation` (`storeAttestationUses`).
 * - Lists: `pageLinks`, `pageCount`, `pageBody`, hrefs (`pathOf`, `environmentHref`, `trailHref`),
 *   and the views a list query writes its page with (`itemsView`, `deploymentsView`, `environmentsView`).
 * - Compliance: `parseTemplate`, `evaluateCompliance`.
 * - Console pages: `definePage`, `consolePages` (the console's own), `consoleSecurityHeaders`.
 * - The store's records (`EnvironmentRecord`, `TrailRow`, ...), `storeTokens` (the token
 *   authenticator), and the API's own plugins by name (`ownPlugins`), to compose a server of some of them.
 */
export { definePlugin, type DeclaredStore, type HandlerInput, type HandlerResult, type NoStoreDeclared, type Plugin, type UploadedFile } from './plugin.ts';
export { ApiError, badRequest, isDatabaseUnavailable, notFound } from './http/errors.ts';
export {
  requireFlow,
  requireFlowUses,
  requireOrganization,
  requireOrganizationUses,
  requireTrail,
  requireTrailUses,
} from './operations/lookup.ts';
export { storeAttestation, storeAttestationUses, type AttestationToStore } from './operations/attest.ts';
export { environmentHref, pageBody, pageCount, pageLinks, pathOf, trailHref, type PageFigures, type PageLinks, type ViewContext } from './http/links.ts';
export { itemsView } from './store/views.ts';
export { deploymentsView, type DeploymentRecord } from './http/views/deployments.ts';
export { environmentsView } from './http/views/environments.ts';
export { parseTemplate, TemplateError, type TemplateModel } from './domain/template.ts';
export { evaluateCompliance, type AttestationFacts, type ComplianceStatus } from './domain/compliance.ts';
export { storeTokens } from './auth.ts';
export { StoreDeclarationError, type PluginQueryKey, type PluginStoreKey, type StoreDeclaration } from './plugin-store.ts';
export { StoreError, type StoreErrorKind } from './store/errors.ts';
export type * from './store/types.ts';
export * from './operations/index.ts';
export { consoleSecurityHeaders } from './console/index.ts';
export { definePage, type Page, type PageInput, type PageResult } from './console/page.ts';
export { consolePages } from './console/routes.ts';
