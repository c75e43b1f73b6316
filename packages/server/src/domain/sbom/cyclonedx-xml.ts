/**
 * A CycloneDX XML document's summary, as internal/sbom reads one (CLI v2.41, through
 * cyclonedx-go): its version from the root's namespace, its timestamp, its tools (the 1.4
 * `<tool>` list and the 1.5 `<components>` one; services are not tools) and its package count
 * (every component but files, at any depth). Streamed through saxes, which keeps no tree: memory
 * stays that of the text, a DOCTYPE (the only way to declare entities) ends the reading, and so
 * do elements nested past `maxNestedElements`.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { SbomReading } from './sbom-reading.ts';

/** Elements open at once: a CycloneDX document nests two per level of components, so this is 127 levels of them. */
export const maxNestedElements = 256;
/** Tools kept, and characters of a timestamp, tool name or version. */
const maxTools = 100;
const maxText = 256;

const cycloneDxNamespace = /^https?:\/\/cyclonedx\.org\/schema\/bom\/(\d+\.\d+)$/;

/** Where an open element sits, for the few paths read (`bom/components/component/components/component`, `bom/metadata/tools/tool/name`, ...). */
type Place = 'bom' | 'components' | 'component' | 'metadata' | 'timestamp' | 'tools' | 'toolComponents' | 'tool' | 'name' | 'version' | 'other';

const children: Partial<Record<Place, Partial<Record<string, Place>>>> = {
  bom: { components: 'components', metadata: 'metadata' },
  components: { component: 'component' },
  component: { components: 'components' },
  metadata: { timestamp: 'timestamp', tools: 'tools' },
  tools: { tool: 'tool', components: 'toolComponents' },
  toolComponents: { component: 'tool' },
  tool: { name: 'name', version: 'version' },
};

/** Why the reading stopped before the end of the document. */
class Stop extends Error {}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** The format the root element's namespace names (`<bom xmlns=…>` or `<p:bom xmlns:p=…>`), or a Stop. */
function formatOf(root: SaxesTagPlain): string {
  const colon = root.name.indexOf(':');
  const namespace = root.attributes[colon < 0 ? 'xmlns' : `xmlns:${root.name.slice(0, colon)}`];
  const version = localName(root.name) === 'bom' && typeof namespace === 'string' ? cycloneDxNamespace.exec(namespace)?.[1] : undefined;
  if (!version) throw new Stop('not a CycloneDX XML document (its root is not a bom of the http://cyclonedx.org/schema/bom/ namespace)');
  return `cyclonedx-${version}`;
}

/** Reads a CycloneDX XML document's format and summary; a reason when it cannot. */
export function readCycloneDxXml(content: string): SbomReading {
  const parser = new SaxesParser();
  const places: Place[] = [];
  const tool = { name: '', version: '' };
  const found = { format: '', timestamp: '', tools: [] as string[], packages: 0 };
  parser.on('doctype', () => {
    throw new Stop('the XML document declares a DOCTYPE, which is not read');
  });
  parser.on('opentag', (tag) => {
    if (places.length >= maxNestedElements) throw new Stop(`the XML document nests elements deeper than ${maxNestedElements}`);
    const parent = places[places.length - 1];
    if (parent === undefined) found.format = formatOf(tag);
    const place = parent === undefined ? 'bom' : (children[parent]?.[localName(tag.name)] ?? 'other');
    if (place === 'component' && tag.attributes.type !== 'file') found.packages++;
    if (place === 'tool') tool.name = tool.version = '';
    places.push(place);
  });
  parser.on('text', (text) => {
    const place = places[places.length - 1];
    if (place === 'timestamp') found.timestamp = (found.timestamp + text).slice(0, maxText);
    else if ((place === 'name' || place === 'version') && places[places.length - 2] === 'tool') tool[place] = (tool[place] + text).slice(0, maxText);
  });
  parser.on('closetag', () => {
    if (places.pop() === 'tool' && found.tools.length < maxTools)
      found.tools.push(tool.version.trim() ? `${tool.name.trim()} ${tool.version.trim()}` : tool.name.trim());
  });
  try {
    parser.write(content).close();
  } catch (error) {
    return {
      read: false,
      reason: error instanceof Stop ? error.message : `the XML document could not be read: ${String((error as Error).message).slice(0, 200)}`,
    };
  }
  const document = { created_at: found.timestamp.trim() || null, tools: found.tools, package_count: found.packages };
  return { read: true, summary: { format: found.format, document } };
}
