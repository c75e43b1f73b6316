/**
 * Error annotations for failed tests, as workflow commands (`::error file=…,line=…,title=…::`):
 * they need no token, so they work on pull requests from forks too. Where a test failed is
 * taken from the case's `file`/`line` attributes, else from the first stack frame that points
 * into the workspace; a path outside the workspace gets no file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import type { JunitCase } from '@trailproof/junit';

export interface Annotation {
  title: string;
  message: string;
  /** Relative to the workspace (the repository root), with `/`. */
  file?: string;
  line?: number;
}

/** GitHub shows at most this many error annotations per step. */
export const annotationsPerStep = 10;
const maxTitle = 200;
const maxMessage = 4000;
/** Stack lines shown under the message. */
const stackLines = 12;

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The case's title: suite › class › name, without repeating a class named like its suite. */
export function caseTitle(c: JunitCase): string {
  const parts = [c.suiteName, c.className !== c.suiteName ? c.className : '', c.name].filter((p, i, all) => p !== '' && (i === 0 || p !== all[i - 1]));
  return parts.join(' › ');
}

/** Annotations for the first `max` of `failures`. */
export function annotationsFor(failures: readonly JunitCase[], max: number, workspace: string): Annotation[] {
  const locator = new Locator(workspace);
  return failures.slice(0, max).map((c) => {
    const details = c.details?.split('\n').slice(0, stackLines).join('\n');
    const message = [c.message, details && details !== c.message ? details : undefined].filter(Boolean).join('\n') || c.outcome;
    return { title: shorten(caseTitle(c), maxTitle), message: shorten(message, maxMessage), ...locator.locate(c) };
  });
}

/** Stack frames: Node/V8 and most others (`path:line[:col]`), Python (`File "path", line N`), Java (`at pkg.Class.method(File.java:N)`), Go (`file_test.go:N:`). */
const PYTHON_FRAME = /File "([^"]+)", line (\d+)/;
const JAVA_FRAME = /^\s*at ([\w$.]+)\.[\w$<>]+\(([\w$]+\.(?:java|kt|groovy|scala)):(\d+)\)/;
const PATH_FRAME = /(?:^|[\s(])((?:file:\/\/)?(?:\/|\.{0,2}[\w@.-]*\/)?[\w@.\-/]*[\w-]\.[A-Za-z0-9]{1,6}):(\d+)(?::\d+)?(?=$|[\s):])/;

class Locator {
  private goModule: string | null | undefined;
  private modules: string[] | undefined;

  constructor(private readonly workspace: string) {}

  locate(c: JunitCase): { file?: string; line?: number } {
    const given = c.file ? this.inWorkspace(c.file) : undefined;
    // A frame in the case's own file names the failing line; the attribute only where the test starts.
    const frame = this.firstFrame(c);
    if (given !== undefined) return frame?.file === given ? frame : { file: given, ...(c.line ? { line: c.line } : {}) };
    return frame ?? {};
  }

  private firstFrame(c: JunitCase): { file: string; line: number } | undefined {
    for (const text of [c.details, c.message]) {
      for (const line of text?.split('\n') ?? []) {
        const found = this.frame(line, c);
        if (found) return found;
      }
    }
    return undefined;
  }

  private frame(text: string, c: JunitCase): { file: string; line: number } | undefined {
    const python = PYTHON_FRAME.exec(text);
    if (python) return this.at(python[1]!, python[2]!);
    const java = JAVA_FRAME.exec(text);
    if (java) {
      const dir = java[1]!.split('.').slice(0, -1).join('/');
      const file = this.sourceRoots()
        .map((root) => join(root, dir, java[2]!))
        .find((f) => existsSync(join(this.workspace, f)));
      return file ? { file: file.split(sep).join('/'), line: Number(java[3]) } : undefined;
    }
    const path = PATH_FRAME.exec(text);
    if (!path || path[1]!.includes('node_modules/')) return undefined;
    // Go prints a test file's base name: relative to the package's directory (the class name, within the module).
    const goDir = /^[\w-]+_test\.go$/.test(path[1]!) ? this.goPackageDir(c.className) : undefined;
    return this.at(goDir ? join(goDir, path[1]!) : path[1]!.replace(/^file:\/\//, ''), path[2]!);
  }

  private at(path: string, line: string): { file: string; line: number } | undefined {
    const file = this.inWorkspace(path, true);
    const n = Number(line);
    return file !== undefined && n > 0 ? { file, line: n } : undefined;
  }

  /** `path` relative to the workspace with `/`, or undefined outside it (or, with `mustExist`, where no such file is). */
  private inWorkspace(path: string, mustExist = false): string | undefined {
    const rel = normalize(isAbsolute(path) ? relative(this.workspace, path) : path);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
    if (mustExist && !existsSync(join(this.workspace, rel))) return undefined;
    return rel.split(sep).join('/');
  }

  /** Where Java/Kotlin sources sit: the usual roots, at the top and in each top-level module. */
  private sourceRoots(): string[] {
    if (this.modules === undefined) {
      let dirs: string[] = [];
      try {
        dirs = readdirSync(this.workspace, { withFileTypes: true })
          .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
          .slice(0, 200)
          .map((d) => d.name);
      } catch {
        // no workspace listing: the top-level roots only
      }
      this.modules = ['', ...dirs];
    }
    const roots = ['src/test/java', 'src/main/java', 'src/test/kotlin', 'src/main/kotlin', 'src/it/java', ''];
    return this.modules.flatMap((m) => roots.map((r) => join(m, r)));
  }

  /** A Go package's directory in the workspace, from its import path and the module in go.mod. */
  private goPackageDir(importPath: string): string | undefined {
    if (this.goModule === undefined) {
      try {
        this.goModule = /^module\s+(\S+)/m.exec(readFileSync(join(this.workspace, 'go.mod'), 'utf8'))?.[1] ?? null;
      } catch {
        this.goModule = null;
      }
    }
    const mod = this.goModule;
    if (mod === null || (importPath !== mod && !importPath.startsWith(`${mod}/`))) return undefined;
    return importPath.slice(mod.length + 1) || '.';
  }
}
