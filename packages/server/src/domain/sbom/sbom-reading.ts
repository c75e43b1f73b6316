/** What the server reads of an SBOM (sbom-summary.ts, cyclonedx-xml.ts), or why it did not. */
export interface SbomSummary {
  format: string;
  /** The document's creation time, its tools and package count; null where the form is not read. */
  document: { created_at: string | null; tools: string[]; package_count: number } | null;
}

export type SbomReading = { read: true; summary: SbomSummary } | { read: false; reason: string };
