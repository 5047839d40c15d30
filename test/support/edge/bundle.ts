/**
 * esbuild bundles of the edge packages for tests and benchmarks: platform neutral (no Node
 * resolution, no Node built-ins), ESM, sources resolved through the `@tollgate/source`
 * export condition so no prior build is needed.
 */
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** A Node built-in some module imported (or required), and who imported it. */
export interface NodeImport {
  path: string;
  importer: string;
  kind: string;
}

/** True for `node:*` and for bare names of Node built-ins (`fs`, `path`, `crypto`, `buffer`, `fs/promises` …). */
export function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier);
}

/** Records every import of a Node built-in and keeps it out of the bundle (external), so all of them are reported at once. */
export function nodeBuiltinGuard(found: NodeImport[]): esbuild.Plugin {
  return {
    name: 'node-builtin-guard',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (!isNodeBuiltin(args.path)) return undefined;
        found.push({ path: args.path, importer: args.importer.replace(ROOT, ''), kind: args.kind });
        return { path: args.path, external: true };
      });
    },
  };
}

export interface EdgeBundleOptions {
  entryPoints?: string[] | Record<string, string>;
  /** An entry given as source text instead (resolved from the repository root), e.g. a variant of an example. */
  stdin?: { contents: string; sourcefile: string };
  minify?: boolean;
  /** `neutral` (default) or `browser` (what Worker tooling uses, with the `workerd`/`worker` conditions). */
  platform?: 'neutral' | 'browser';
  /** Resolve @tollgate packages to their sources (default) or to their built dist. */
  sources?: boolean;
  outdir?: string;
  write?: boolean;
  format?: 'esm' | 'iife';
  /** Packages left out of the bundle (to measure what they add). */
  external?: string[];
  /** Put dynamically imported modules in their own chunks (esbuild `splitting`, ESM only). */
  splitting?: boolean;
  /** Import paths replaced by others (esbuild `alias`), e.g. a subpath by its package's root entry. */
  alias?: Record<string, string>;
}

export interface EdgeBundle {
  result: esbuild.BuildResult<{ metafile: true; write: false }>;
  nodeImports: NodeImport[];
  errors: esbuild.Message[];
}

export async function bundleEdge(options: EdgeBundleOptions): Promise<EdgeBundle> {
  const nodeImports: NodeImport[] = [];
  const platform = options.platform ?? 'neutral';
  const conditions = [...(options.sources === false ? [] : ['@tollgate/source']), ...(platform === 'browser' ? ['workerd', 'worker', 'browser'] : [])];
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      ...(options.stdin === undefined ? { entryPoints: options.entryPoints ?? [] } : { stdin: { ...options.stdin, resolveDir: ROOT, loader: 'ts' as const } }),
      bundle: true,
      write: false,
      outdir: options.outdir ?? 'out',
      format: options.format ?? 'esm',
      platform,
      target: 'es2022',
      mainFields: platform === 'browser' ? ['browser', 'module', 'main'] : ['module', 'main'],
      conditions,
      minify: options.minify ?? false,
      metafile: true,
      logLevel: 'silent',
      external: options.external ?? [],
      splitting: options.splitting ?? false,
      alias: options.alias ?? {},
      plugins: [nodeBuiltinGuard(nodeImports)],
    });
    return { result, nodeImports, errors: result.errors };
  } catch (error) {
    const failure = error as esbuild.BuildFailure;
    if (!Array.isArray(failure.errors)) throw error;
    return { result: undefined as never, nodeImports, errors: failure.errors };
  }
}

/** esbuild messages as one readable string. */
export function formatMessages(messages: esbuild.Message[]): string {
  return messages.map((m) => `${m.text}${m.location ? ` (${m.location.file}:${m.location.line})` : ''}`).join('\n');
}
