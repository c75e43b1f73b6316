/**
 * The bytes as a `Buffer` over the same memory, not a copy: what better-sqlite3 binds and Koa
 * sends. Structured clone turns a `Buffer` into a plain `Uint8Array`; `Buffer.from(bytes)` would
 * copy it, which for a large attachment is not free.
 */
export const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
