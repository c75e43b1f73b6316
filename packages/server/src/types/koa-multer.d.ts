/** The part of @koa/multer 4 that Trailproof uses (the package ships no types). */
declare module '@koa/multer' {
  import type { Middleware } from 'koa';

  export interface MulterFile {
    fieldname: string;
    originalname: string;
    mimetype: string;
    size: number;
    buffer: Buffer;
  }
  interface Limits {
    fieldNameSize?: number;
    fieldSize?: number;
    fields?: number;
    fileSize?: number;
    files?: number;
    parts?: number;
    headerPairs?: number;
    fieldNestingDepth?: number;
    fieldArrayIndexLimit?: number;
  }
  interface Instance {
    fields(fields: Array<{ name: string; maxCount?: number }>): Middleware;
  }
  interface Multer {
    (options: {
      storage: unknown;
      limits?: Limits;
      defParamCharset?: string;
      /** Called as each file part begins: `accept(error)` refuses the request, `accept(null, true)` keeps the file. */
      fileFilter?: (
        req: unknown,
        file: { fieldname: string; originalname: string; mimetype: string },
        accept: (error: Error | null, keep?: boolean) => void,
      ) => void;
      /** Feeds the request to busboy (multer's default: `req.pipe(busboy)`). */
      streamHandler?: (req: import('node:http').IncomingMessage, busboy: any) => void;
    }): Instance;
    memoryStorage(): unknown;
  }
  const multer: Multer;
  export default multer;
}
