import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { maxNestedElements, readCycloneDxXml } from './cyclonedx-xml.ts';
import { summarizeSbom } from './sbom-summary.ts';

const fixture = (name: string) => readFileSync(new URL(`../../kosli-cli/fixtures/sbom/${name}`, import.meta.url));
const bom = (version: string, inside: string) => `<?xml version="1.0"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/${version}" version="1">${inside}</bom>`;

/** CycloneDX XML read for its contents as internal/sbom reads them (CLI v2.41), and what it refuses to read. */
describe('CycloneDX XML SBOMs: format, timestamp, tools and package count', () => {
  it('reads the fixture as the CLI summarises it (sbom.test.ts sends that summary)', () => {
    expect(summarizeSbom(fixture('shop-cyclonedx-1.5.xml'))).to.deep.equal({
      read: true,
      summary: { format: 'cyclonedx-1.5', document: { created_at: '2026-11-30T10:00:00Z', tools: ['cyclonedx-maven-plugin 2.9.1'], package_count: 1 } },
    });
  });

  it('a prefixed namespace, the 1.4 tool list, entities in text; files are not packages, nested components are, the subject and tools are not', () => {
    const xml = `<c:bom xmlns:c="http://cyclonedx.org/schema/bom/1.4"><c:metadata><c:timestamp> 2026-01-02T03:04:05Z </c:timestamp>
      <c:tools><c:tool><c:vendor>acme</c:vendor><c:name>scan &amp; list</c:name><c:version>2</c:version></c:tool><c:tool><c:name>bare</c:name></c:tool></c:tools>
      <c:component type="application"><c:name>subject</c:name></c:component></c:metadata>
      <c:components><c:component type="file"><c:name>a.txt</c:name></c:component>
      <c:component type="library"><c:name>outer</c:name><c:components><c:component type="library"><c:name>inner</c:name></c:component>
      <c:component type="file"><c:name>b.txt</c:name></c:component></c:components></c:component></c:components></c:bom>`;
    expect(readCycloneDxXml(xml)).to.deep.equal({
      read: true,
      summary: { format: 'cyclonedx-1.4', document: { created_at: '2026-01-02T03:04:05Z', tools: ['scan & list 2', 'bare'], package_count: 2 } },
    });
    // 1.5's tools as components (services are not tools); no metadata at all is no timestamp.
    const tools = bom(
      '1.6',
      '<metadata><tools><components><component type="application"><name>syft</name><version>1.50.0</version></component></components><services><service><name>api</name></service></services></tools></metadata>',
    );
    expect(readCycloneDxXml(tools)).to.deep.include({ read: true });
    expect((readCycloneDxXml(tools) as { summary: { document: unknown } }).summary.document).to.deep.equal({
      created_at: null,
      tools: ['syft 1.50.0'],
      package_count: 0,
    });
  });

  it('refuses, saying why: another namespace, a DOCTYPE (entity declarations), an undeclared entity, nesting past the bound, broken XML', () => {
    const reason = (xml: string) => {
      const reading = readCycloneDxXml(xml);
      expect(reading.read, xml.slice(0, 80)).to.equal(false);
      return (reading as { reason: string }).reason;
    };
    expect(reason('<bom xmlns="http://example.com/schema/bom/1.5"/>')).to.contain('not a CycloneDX XML document');
    expect(reason('<components xmlns="http://cyclonedx.org/schema/bom/1.5"/>')).to.contain('not a CycloneDX XML document');
    const laughs = `<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY a "aaaaaaaaaa">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${`&${i ? 'b'.repeat(i) : 'a'};`.repeat(10)}">`).join('')}]>
      <bom xmlns="http://cyclonedx.org/schema/bom/1.5"><components><component type="library"><name>&bbbbbbbbb;</name></component></components></bom>`;
    expect(reason(laughs)).to.equal('the XML document declares a DOCTYPE, which is not read');
    expect(reason(bom('1.5', '<components><component type="library"><name>&xxe;</name></component></components>'))).to.contain('could not be read');
    const deep = bom('1.6', `<components>${'<component type="library"><components>'.repeat(100_000)}`);
    expect(reason(deep)).to.equal(`the XML document nests elements deeper than ${maxNestedElements}`);
    expect(reason(bom('1.5', '<components><component></components>'))).to.contain('could not be read');
  });
});
