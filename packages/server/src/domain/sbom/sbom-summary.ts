/**
 * What an SBOM says of itself, read by the server from the document attached, to check the summary
 * `kosli attest sbom` sent (kosli-dev/cli internal/sbom/sbom.go, v2.41, cli#1162/#1168): its format
 * (`cyclonedx-<specVersion>`, `spdx-<version>`), when and by which tools it was made, and how many
 * packages it lists (CycloneDX: every component but files, at any depth; SPDX: its packages). JSON
 * forms are read whole; SPDX tag-value by its tags; CycloneDX XML by its namespace and its
 * elements (cyclonedx-xml.ts). Pure: the caller decides where it runs (read-sbom.ts).
 */
import { readCycloneDxXml } from './cyclonedx-xml.ts';
import type { SbomReading } from './sbom-reading.ts';

export type { SbomReading, SbomSummary } from './sbom-reading.ts';

const gzipMagic = [0x1f, 0x8b];
const spdxTagVersion = /^\s*SPDXVersion:\s*SPDX-(\d+\.\d+)\s*$/m;

type Component = { type?: unknown; components?: unknown };

/** Components that are not files, at any depth (`packageCount`); `depth` bounds a document nested past sense. */
function packageCount(components: unknown, depth = 0): number {
  if (!Array.isArray(components) || depth > 64) return 0;
  let count = 0;
  for (const c of components as Component[]) {
    if (c === null || typeof c !== 'object') continue;
    if (c.type !== 'file') count++;
    count += packageCount(c.components, depth + 1);
  }
  return count;
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');
const nameAndVersion = (t: { name?: unknown; version?: unknown }) => (text(t.version) ? `${text(t.name)} ${text(t.version)}` : text(t.name));

function cycloneDxTools(tools: unknown): string[] {
  if (Array.isArray(tools)) return tools.filter((t) => t && typeof t === 'object').map(nameAndVersion);
  const choice = (tools ?? {}) as { components?: unknown };
  return Array.isArray(choice.components) ? choice.components.filter((t) => t && typeof t === 'object').map(nameAndVersion) : [];
}

function readJson(document: Record<string, unknown>): SbomReading {
  if (typeof document['@context'] === 'string' && document['@context'].includes('spdx.org')) return { read: false, reason: 'SPDX 3 JSON-LD is not supported' };
  if (typeof document.spdxVersion === 'string') {
    const creation = (document.creationInfo ?? {}) as { created?: unknown; creators?: unknown };
    const creators = Array.isArray(creation.creators) ? creation.creators.filter((c): c is string => typeof c === 'string') : [];
    return {
      read: true,
      summary: {
        format: `spdx-${document.spdxVersion.replace(/^SPDX-/, '')}`,
        document: {
          created_at: text(creation.created) || null,
          tools: creators.filter((c) => c.startsWith('Tool:')).map((c) => c.slice('Tool:'.length).trim()),
          package_count: Array.isArray(document.packages) ? document.packages.length : 0,
        },
      },
    };
  }
  if (document.bomFormat !== 'CycloneDX') return { read: false, reason: 'not a CycloneDX or SPDX document' };
  if (typeof document.specVersion !== 'string' || !document.specVersion) return { read: false, reason: 'not a CycloneDX SBOM: no specVersion' };
  const metadata = (document.metadata ?? {}) as { timestamp?: unknown; tools?: unknown };
  return {
    read: true,
    summary: {
      format: `cyclonedx-${document.specVersion}`,
      document: { created_at: text(metadata.timestamp) || null, tools: cycloneDxTools(metadata.tools), package_count: packageCount(document.components) },
    },
  };
}

/** SPDX tag-value: one tag a line (text blocks, which may quote other documents, left out). */
function readTagValue(content: string, version: string): SbomReading {
  const lines = content.replace(/<text>[\s\S]*?<\/text>/g, '').split('\n');
  const values = (tag: string) => lines.filter((l) => l.startsWith(`${tag}:`)).map((l) => l.slice(tag.length + 1).trim());
  return {
    read: true,
    summary: {
      format: `spdx-${version}`,
      document: {
        created_at: values('Created')[0] ?? null,
        tools: values('Creator')
          .filter((c) => c.startsWith('Tool:'))
          .map((c) => c.slice('Tool:'.length).trim()),
        package_count: values('PackageName').length,
      },
    },
  };
}

/** Reads an SBOM's format and summary from its bytes; a reason when it is not one this reads. */
export function summarizeSbom(bytes: Uint8Array): SbomReading {
  if (bytes[0] === gzipMagic[0] && bytes[1] === gzipMagic[1]) return { read: false, reason: 'the file is gzip compressed' };
  const content = new TextDecoder().decode(bytes).replace(/^\uFEFF/, '');
  const start = content.trimStart()[0];
  if (start === '{') {
    let document: unknown;
    try {
      document = JSON.parse(content);
    } catch (error) {
      return { read: false, reason: `not JSON: ${(error as Error).message.slice(0, 200)}` };
    }
    return document && typeof document === 'object' ? readJson(document as Record<string, unknown>) : { read: false, reason: 'not an SBOM' };
  }
  if (start === '<') return readCycloneDxXml(content);
  const version = spdxTagVersion.exec(content.replace(/<text>[\s\S]*?<\/text>/g, ''))?.[1];
  return version ? readTagValue(content, version) : { read: false, reason: 'not a CycloneDX or SPDX document in JSON, XML or tag-value form' };
}
