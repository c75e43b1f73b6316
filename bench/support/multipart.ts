/**
 * The multipart parsing of the write path's references (baseline-write.ts, floor-write.ts): the
 * server's JUnit attestation body parsed as the server parses it (@koa/multer, memory storage,
 * the same busboy limits), then its `data_json`.
 */
import multer from '@koa/multer';
import type Koa from 'koa';
import { limits } from '@trailproof/schema';

const upload = multer({
  storage: multer.memoryStorage(),
  defParamCharset: 'utf8',
  limits: {
    fileSize: 10 * 1024 * 1024,
    files: 2,
    fields: 4,
    parts: 6,
    fieldSize: limits.dataJsonBytes,
    fieldNameSize: 100,
    headerPairs: 50,
    fieldNestingDepth: 0,
    fieldArrayIndexLimit: 0,
  },
}).fields([
  { name: 'data_json', maxCount: 1 },
  { name: 'attachment_file', maxCount: 1 },
]);

/** The attestation's name (from `data_json`) and its attachment's bytes. */
export async function parseAttestation(ctx: Koa.Context): Promise<{ name: string; attachment: Buffer | null }> {
  await upload(ctx, async () => {});
  const data = JSON.parse((ctx.request as unknown as { body: { data_json: string } }).body.data_json) as { attestation_name: string };
  const files = (ctx as unknown as { files?: Record<string, Array<{ buffer: Buffer }>> }).files;
  return { name: data.attestation_name, attachment: files?.attachment_file?.[0]?.buffer ?? null };
}

/** What both answer, as the server does. */
export function created(ctx: Koa.Context, name: string): void {
  ctx.status = 201;
  ctx.body = JSON.stringify(`junit attestation '${name}' was added to trail 't1'`);
  ctx.type = 'application/json';
}
