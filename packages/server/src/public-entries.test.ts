/**
 * What the published entries export, name by name: a new export is a change to the public API,
 * so it shows here and must be documented where its entry is (the entry's header comment, and
 * for `@trailproof/server` the package README too).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import ts from 'typescript';

const source = (file: string) => readFileSync(new URL(file, import.meta.url), 'utf8');

/** The names a module exports, and whether it exports any wholesale (`export *`, `export type *`). */
function exportsOf(file: string): { names: string[]; values: string[]; wholesale: boolean } {
  const parsed = ts.createSourceFile(file, source(file), ts.ScriptTarget.Latest);
  const names: string[] = [];
  const values: string[] = [];
  let wholesale = false;
  for (const statement of parsed.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    if (!statement.exportClause || !ts.isNamedExports(statement.exportClause)) {
      wholesale = true;
      continue;
    }
    for (const element of statement.exportClause.elements) {
      names.push(element.name.text);
      if (!statement.isTypeOnly && !element.isTypeOnly) values.push(element.name.text);
    }
  }
  return { names: names.sort(), values: values.sort(), wholesale };
}

/** The comment before a module's first export. */
const headerOf = (file: string) => source(file).split(/^export /m)[0]!;

const pluginKit = [
  'ApiError',
  'ApprovalRecord',
  'ApprovalState',
  'ArtifactApproval',
  'AttestationFacts',
  'AttestationFactsRow',
  'AttestationRow',
  'AttestationToStore',
  'CheckpointRecord',
  'ComplianceStatus',
  'DeclaredStore',
  'DeploymentListRow',
  'DeploymentRecord',
  'EnvironmentEventRecord',
  'EnvironmentListRow',
  'EnvironmentRecord',
  'FingerprintAttestation',
  'FlowRecord',
  'FlowWithLatestTrail',
  'HandlerInput',
  'HandlerResult',
  'JunitSuiteTotals',
  'NoStoreDeclared',
  'Page',
  'PageFigures',
  'PageInput',
  'PageLinks',
  'PageResult',
  'Plugin',
  'PluginQueryKey',
  'PluginStoreKey',
  'ReviewRecord',
  'RunningArtifact',
  'SnapshotRecord',
  'StoreDeclaration',
  'StoreDeclarationError',
  'StoreError',
  'StoreErrorKind',
  'StorePart',
  'StoreUses',
  'TemplateError',
  'TemplateModel',
  'TrailRow',
  'TrailWithTemplate',
  'UploadedFile',
  'ViewContext',
  'badRequest',
  'consolePages',
  'consoleSecurityHeaders',
  'definePage',
  'definePlugin',
  'deploymentItemsJson',
  'environmentHref',
  'environmentItemsJson',
  'evaluateCompliance',
  'isDatabaseUnavailable',
  'notFound',
  'ownPlugins',
  'pageBody',
  'pageCount',
  'pageLinks',
  'parseTemplate',
  'pathOf',
  'requireFlow',
  'requireFlowUses',
  'requireOrganization',
  'requireOrganizationUses',
  'requireTrail',
  'requireTrailUses',
  'storeAttestation',
  'storeAttestationUses',
  'storeTokens',
  'trailHref',
];

/** `@trailproof/server`'s values: at most 15. */
const serverValues = [
  'ApiError',
  'DuplicateOperationError',
  'InMemoryDatabaseError',
  'createApp',
  'createConsole',
  'createLogger',
  'createRouter',
  'createToken',
  'defaultPlugins',
  'definePlugin',
  'openPostgresStore',
  'openSqliteStore',
  'openStore',
  'silentLogger',
  'startServer',
];

describe('the published entries', () => {
  it('plugin-kit exports exactly its documented names, none wholesale', async () => {
    const found = exportsOf('./plugin-kit.ts');
    expect(found.wholesale, 'export * in plugin-kit.ts').to.equal(false);
    expect(found.names).to.deep.equal([...pluginKit].sort());
    expect(Object.keys(await import('@trailproof/server/plugin-kit')).sort()).to.deep.equal(found.values);
    const header = headerOf('./plugin-kit.ts');
    expect(pluginKit.filter((name) => !header.includes(`\`${name}\``))).to.deep.equal([]);
  });

  it('@trailproof/server exports at most 15 values, each documented in index.ts and the package README', async () => {
    const found = exportsOf('./index.ts');
    expect(found.wholesale, 'export * in index.ts').to.equal(false);
    expect(serverValues).to.have.length.at.most(15);
    expect(found.values).to.deep.equal([...serverValues].sort());
    expect(Object.keys(await import('@trailproof/server')).sort()).to.deep.equal([...serverValues].sort());
    const header = headerOf('./index.ts');
    const readme = source('../README.md').split('## Entry points')[1]!.split('`@trailproof/server/plugin-kit`')[0]!;
    expect(serverValues.filter((name) => !header.includes(`\`${name}\``) && !header.includes(`\`${name}(`))).to.deep.equal([]);
    expect(serverValues.filter((name) => !readme.includes(`\`${name}\``))).to.deep.equal([]);
  });
});
