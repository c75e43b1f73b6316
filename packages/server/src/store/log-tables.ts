/** The transparency log's tables (migrations 0017 and 0019) as Kysely sees them; see log.ts. */

/**
 * A complete subtree's hash (of a leaf, or of 2^level leaves), keyed by its place in the order
 * appends complete subtrees (`subtreePosition`, transparency/subtree-positions.ts; migration 0019). Append-only.
 */
export interface LogSubtreesTable {
  organization_id: number;
  position: number;
  hash: Uint8Array;
}

/** An organisation's tree: its size and right edge (the frontier's hashes, largest subtree first, concatenated). */
export interface LogTreesTable {
  organization_id: number;
  size: number;
  frontier: Uint8Array;
}

/** A signed checkpoint (C2SP signed note) of an organisation's tree. Append-only. */
export interface LogCheckpointsTable {
  organization_id: number;
  tree_size: number;
  root_hash: Uint8Array;
  note: string;
  created_at: number;
}

/** The log's origin (host part) and the signing key made at first start (one row, id 1). */
export interface LogSigningTable {
  id: number;
  origin: string;
  /** Note-format signer key; null while a key is given from outside (TRAILPROOF_SIGNING_KEY). */
  signer_key: string | null;
  created_at: number;
}

export interface LogTables {
  log_subtrees: LogSubtreesTable;
  log_trees: LogTreesTable;
  log_checkpoints: LogCheckpointsTable;
  log_signing: LogSigningTable;
}
