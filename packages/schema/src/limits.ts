/**
 * Input limits shared by the schemas and the server. Every string and array in the contract is
 * bounded by one of these, so a client can never make the server hold unbounded input.
 */
export const limits = {
  /** Names of organisations, flows, trails, environments, attestations. */
  name: 128,
  /** Short free text: authors, branches, artifact names. */
  shortText: 256,
  /** Long free text: descriptions, commit messages. */
  text: 16_384,
  url: 2_048,
  /** Uploaded files (attachments, templates): 10MB as SPEC.md says. */
  fileBytes: 10 * 1024 * 1024,
  /** An uploaded file's name, in UTF-8 bytes (what most file systems allow); sent back in `Content-Disposition`. */
  fileNameBytes: 255,
  /** The `data_json` form field. */
  dataJsonBytes: 1024 * 1024,
  /** `junit_results` entries in one attestation. */
  junitResults: 10_000,
  /** Findings of one scanner run (Snyk's vulnerabilities of a severity, Sonar's conditions, Jira's issues). */
  findings: 10_000,
  /** Items of small arrays (parents, target_artifacts, policies, tags, repeated query values). */
  smallArray: 100,
  /** Keys of free-form JSON objects (user_data, tags, annotations, external_urls). */
  objectKeys: 100,
} as const;
