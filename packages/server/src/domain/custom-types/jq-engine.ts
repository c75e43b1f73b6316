/**
 * jq-wasm's engine for the judge's thread (judge-worker.ts): one Emscripten instance kept from run
 * to run, its stack put back after each run, and a new instance only when a run failed or left its
 * memory large. jq-wasm's `callMain` leaves each run's arguments and `main`'s frame (about 3 KB) on
 * a stack of about 1 MiB, which without putting it back overflows into jq's static data.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface JqModule {
  raw(input: string, filter: string, flags: string[]): Promise<string>;
}

interface Engine {
  module: JqModule;
  /** Emscripten's `_emscripten_stack_alloc`: moves the stack pointer down by its argument and returns it. */
  stackAlloc: (bytes: number) => number;
  memory: WebAssembly.Memory;
}

const require = createRequire(import.meta.url);
const gluePath = require.resolve('jq-wasm/dist/build/jq.js');
/** jq-wasm's Emscripten module factory: the package's own wrapper keeps one engine for ever and cannot put its stack back. */
const newModule = require(gluePath) as (moduleArg?: object) => Promise<JqModule>;
/** The build minifies the export's name: read from the glue that calls it, so a rebuilt package that renames it fails the first run, not a later one. */
const stackAllocName = /__emscripten_stack_alloc = wasmExports\["(\w+)"\]/.exec(readFileSync(gluePath, 'utf8'))?.[1];

/** Memory an engine may keep between runs (it starts at 16 MiB and never shrinks): past it the next run gets a new one. */
export const keptMemoryBytes = 64 * 1024 * 1024;

let compiledJq: WebAssembly.Module | undefined;
let created = 0;

/** A new engine: the first compiles jq's WebAssembly (kept), the others only instantiate it (a few ms). */
async function newEngine(): Promise<Engine> {
  let instance: WebAssembly.Instance | undefined;
  let module: JqModule;
  const compiled = compiledJq;
  if (compiled) {
    module = await newModule({
      instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
        instance = new WebAssembly.Instance(compiled, imports);
        receive(instance, compiled);
        return instance.exports;
      },
    });
  } else {
    const instantiate = WebAssembly.instantiate;
    WebAssembly.instantiate = (async (...args: Parameters<typeof instantiate>) => {
      const made = await instantiate(...args);
      if ('module' in made) {
        const { module, instance: madeInstance } = made as unknown as WebAssembly.WebAssemblyInstantiatedSource;
        compiledJq = module;
        instance = madeInstance;
      }
      return made;
    }) as typeof instantiate;
    try {
      module = await newModule();
    } finally {
      WebAssembly.instantiate = instantiate;
    }
  }
  const exports = Object.values(instance!.exports);
  const stackAlloc = stackAllocName ? instance!.exports[stackAllocName] : undefined;
  const memory = exports.find((e): e is WebAssembly.Memory => e instanceof WebAssembly.Memory);
  if (typeof stackAlloc !== 'function' || !memory) throw new Error("jq-wasm's build does not export its stack pointer as this judge expects");
  created++;
  return { module, stackAlloc: stackAlloc as Engine['stackAlloc'], memory };
}

let engine: Promise<Engine> | undefined;

/**
 * Runs jq's `main` with `flags` and `program` on `null` as standard input (jq-wasm copies standard
 * input a byte at a time). A failure other than jq's own (`jq: ...`: the program's error) is the
 * engine's (an abort at its memory bound, a trap): its memory is not to be trusted, the next run
 * gets a new one.
 */
export async function runJq(program: string, flags: string[]): Promise<string> {
  const running = (engine ??= newEngine());
  const current = await running;
  const top = current.stackAlloc(0);
  let sound = false;
  try {
    const output = await current.module.raw('null', program, flags);
    sound = true;
    return output;
  } catch (error) {
    sound = error instanceof Error && error.message.startsWith('jq: ');
    throw error;
  } finally {
    // The stack grows down: what the run left on it is `top - now` bytes, given back by "allocating" minus that.
    if (sound) current.stackAlloc(current.stackAlloc(0) - top);
    const keep = sound && current.stackAlloc(0) === top && current.memory.buffer.byteLength <= keptMemoryBytes;
    if (!keep && engine === running) engine = undefined;
  }
}

/** How many engines this thread has made (for tests: one, however many runs, while none failed). */
export const enginesCreated = () => created;
