/**
 * `@trailproof/server/plugin-kit`: what a plugin's handler uses besides `definePlugin` (here too,
 * with its `Plugin` type). Every export is named below; nothing is re-exported wholesale, so that
 * the store's query signatures stay the server's own (public-entries.test.ts lists them).
 *
 * - Handler types: `HandlerInput`, `HandlerResult`, `UploadedFile`; what a plugin declares of the
 *   store (`StoreDeclaration`: its handler's `store`, a `DeclaredStore`, has those members and
 *   nothing else; `NoStoreDeclared` when it declares none).
 * - Errors for the client: `ApiError`, `badRequest`, `notFound`; `isDatabaseUnavailable` for a
 *   store failure that may pass.
 * - Lookups that answer 404 in the API's words: `requireOrganization`, `requireFlow`, `requireTrail`,
 *   each with the list of what it uses (`requireOrganizationUses`, `requireFlowUses`,
 *   `requireTrailUses`) for the plugin's `store` list.
 * - Storing an attestation as the built-in types do: `storeAttestation` (`storeAttestationUses`,
 *   `AttestationToStore`).
 * - Lists: `pageLinks`, `pageCount`, `pageBody` (`PageFigures`, `PageLinks`, `ViewContext`), hrefs
 *   (`pathOf`, `environmentHref`, `trailHref`), and the API's items of the list queries' rows
 *   (`deploymentItemsJson` of `DeploymentRecord`s, `environmentItemsJson`).
 * - Compliance: `parseTemplate` (`TemplateModel`, `TemplateError`), `evaluateCompliance`
 *   (`AttestationFacts`, `ComplianceStatus`).
 * - Console pages: `definePage` (`Page`, `PageInput`, `PageResult`), `consolePages` (the
 *   console's own), `consoleSecurityHeaders`.
 * - The part of the store a helper takes: `StorePart`, `StoreUses`; `StoreDeclarationError`,
 *   `PluginStoreKey`, `PluginQueryKey`; `StoreError` (`StoreErrorKind`).
 * - The store's records that its queries return: `ApprovalRecord`, `ApprovalState`, `ArtifactApproval`,
 *   `AttestationFactsRow`, `AttestationRow`, `CheckpointRecord`, `DeploymentListRow`,
 *   `EnvironmentEventRecord`, `EnvironmentListRow`, `EnvironmentRecord`, `FingerprintAttestation`,
 *   `FlowRecord`, `FlowWithLatestTrail`, `JunitSuiteTotals`, `ReviewRecord`, `RunningArtifact`,
 *   `SnapshotRecord`, `TrailRow`, `TrailWithTemplate`. The queries' own signatures are not public:
 *   a plugin names the queries it uses (`StoreDeclaration`) and gets their types from `Store`.
 * - `storeTokens` (the token authenticator), and the API's own plugins by name (`ownPlugins`), to
 *   compose a server of some of them.
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
export { deploymentItemsJson, type DeploymentRecord } from './http/views/deployments.ts';
export { environmentItemsJson } from './http/views/environments.ts';
export { parseTemplate, TemplateError, type TemplateModel } from './domain/template.ts';
export { evaluateCompliance, type AttestationFacts, type ComplianceStatus } from './domain/compliance.ts';
export { storeTokens } from './auth.ts';
export { StoreDeclarationError, type PluginQueryKey, type PluginStoreKey, type StoreDeclaration } from './plugin-store.ts';
export { StoreError, type StoreErrorKind } from './store/errors.ts';
export type { StorePart, StoreUses } from './store/types.ts';
export type {
  ApprovalRecord,
  ApprovalState,
  ArtifactApproval,
  AttestationFactsRow,
  AttestationRow,
  CheckpointRecord,
  DeploymentListRow,
  EnvironmentEventRecord,
  EnvironmentListRow,
  EnvironmentRecord,
  FingerprintAttestation,
  FlowRecord,
  FlowWithLatestTrail,
  JunitSuiteTotals,
  ReviewRecord,
  RunningArtifact,
  SnapshotRecord,
  TrailRow,
  TrailWithTemplate,
} from './store/types.ts';
export { ownPlugins } from './operations/index.ts';
export { consoleSecurityHeaders } from './console/index.ts';
export { definePage, type Page, type PageInput, type PageResult } from './console/page.ts';
export { consolePages } from './console/routes.ts';
