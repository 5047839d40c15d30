/**
 * Worker bundle size: examples/edge-worker/worker.ts (adapters-edge with core, codecs, policy
 * and their dependencies) bundled by esbuild as Worker tooling does — ESM, minified, browser
 * platform with the `workerd`/`worker`/`browser` conditions — then gzipped (node:zlib, default
 * level). Printed against the 80 KiB gzipped target, with what each package and each optional
 * part (telemetry, DLP, JWT, settle retries …) adds (from the esbuild metafile; a share of the
 * gzip size is estimated in proportion to minified bytes; a dependency's exact share is measured
 * by bundling without it).
 *
 * The example is selective: `createWorker` from `@tollgate/adapters-edge/minimal` with the two
 * codecs it serves. For comparison (not the target), the same Worker is also bundled with that
 * import pointed at `@tollgate/adapters-edge`, whose `createWorker` brings all five formats.
 *
 * The headline is one file, as Wrangler uploads it: Wrangler does not split dynamic imports
 * (cloudflare/workers-sdk#2672), so code behind an `import()` (jose, loaded only when `jwt`
 * entries are configured) is still in the file, only evaluated lazily. A second line bundles
 * with esbuild's code splitting: the entry chunk is what an isolate without JWT config loads,
 * the other chunks are loaded on first use.
 */
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { ROOT, bundleEdge, formatMessages } from '../support/edge/bundle.ts';

export const TARGET_GZIP_BYTES = 80 * 1024;
const ENTRY = 'examples/edge-worker/worker.ts';
/** The example Worker on the all-formats entry: its one `/minimal` import pointed at the package root. */
const ALL_FORMATS = { '@tollgate/adapters-edge/minimal': '@tollgate/adapters-edge' };

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The package a bundled input belongs to: an npm dependency, or one of ours. */
function groupOf(input: string): string {
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (dep !== null) return dep[1]!;
  const ours = /^packages\/([^/]+)\//.exec(input);
  if (ours !== null) return `@tollgate/${ours[1]}`;
  return input.startsWith('examples/') ? 'the Worker entry' : input;
}

/**
 * Parts of the bundle by what they do, for the breakdown (first match wins): those the minimal
 * entry takes only when asked (telemetry, DLP, JWT), and the larger always-on ones.
 */
const PARTS: Array<[name: string, modules: RegExp]> = [
  ['telemetry (OpenTelemetry)', /^packages\/core\/src\/telemetry\/|node_modules\/@opentelemetry\//],
  [
    'DLP (engine, detectors, answer scanning)',
    /^packages\/core\/src\/dlp\/|^packages\/policy\/src\/detect\/|^packages\/policy\/src\/dlp[^/]*\.ts$|^packages\/core\/src\/gateway\/ir-texts\.ts$/,
  ],
  [
    'tool allow lists, prompts (content engine), answer guard',
    /^packages\/core\/src\/content\/|^packages\/core\/src\/gateway\/(policy-stage|answer-guard)\.ts$|^packages\/policy\/src\/(tools|prompts)\.ts$/,
  ],
  ['JWT (jose)', /node_modules\/jose\/|^packages\/core\/src\/identity\/(jose|jwt|jwks)\.ts$/],
  ['settle retry backoff', /node_modules\/(p-retry|is-network-error)\/|^packages\/core\/src\/util\/backoff\.ts$/],
  [
    'hard-cap sizing (cost fields, duplicate keys, early check)',
    /^packages\/codecs\/src\/[^/]+\/cost-fields\.ts$|^packages\/core\/src\/gateway\/(repeated-keys|early-check|bounds|sizing)\.ts$/,
  ],
  ['config validation (zod, schemas)', /node_modules\/zod\/|^packages\/[^/]+\/src\/(.*\/)?(schema|zod-locale)\.ts$/],
];

function partOf(input: string): string | undefined {
  return PARTS.find(([, modules]) => modules.test(input.replace(/^.*?node_modules\//, 'node_modules/')))?.[0];
}

export interface EdgeBundleSize {
  minified: number;
  gzipped: number;
  groups: Array<{ name: string; minified: number }>;
  parts: Array<{ name: string; minified: number }>;
}

/** Dependencies whose exact cost is measured by bundling without them. */
const DEPENDENCIES = ['zod', 'jose', '@opentelemetry/api', 'p-retry'];

/** One output file of a split bundle: its entry point (if any), minified and gzipped bytes. */
export interface Chunk {
  entryPoint: string | undefined;
  groups: string[];
  minified: number;
  gzipped: number;
}

/**
 * The example Worker with engines the minimal entry takes only when given: the same
 * `createWorker` call as examples/edge-worker/worker.ts, plus `extra` options.
 */
function workerWith(imports: string, extra: string): { contents: string; sourcefile: string } {
  return {
    sourcefile: 'examples/edge-worker/worker-variant.ts',
    contents: `
      import { createWorker } from '@tollgate/adapters-edge/minimal';
      import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
      import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
      import { policy, registry } from './examples/edge-worker/registry.ts';
      ${imports}
      const worker = createWorker((env: Record<string, string>) => ({
        registry, policy,
        identity: { virtual_keys: JSON.parse(env.TOLLGATE_VIRTUAL_KEYS!) },
        usage: (record) => console.log(JSON.stringify(record)),
        codecs: [openaiChatCodec, anthropicMessagesCodec],
        ${extra}
      }));
      export default { fetch: (request: Request, env: Record<string, string>, ctx: { waitUntil(p: Promise<unknown>): void }) => worker.fetch(request, env, ctx) };
    `,
  };
}

/** Options the minimal entry takes only when given, with the imports they need. */
const OPT_INS: Array<{ name: string; imports: string; options: string }> = [
  {
    name: 'telemetry: { engine: openTelemetry }',
    imports: "import { openTelemetry } from '@tollgate/core/telemetry';",
    options: 'telemetry: { engine: openTelemetry },',
  },
  { name: 'dlp: { engine: dlpEngine }', imports: "import { dlpEngine } from '@tollgate/core/dlp';", options: 'dlp: { engine: dlpEngine },' },
  {
    name: 'content: { engine: contentEngine }',
    imports: "import { contentEngine } from '@tollgate/core/content';",
    options: 'content: { engine: contentEngine },',
  },
  { name: 'jwt: { engine: jwtEngine }', imports: "import { jwtEngine } from '@tollgate/core/jwt';", options: 'jwt: { engine: jwtEngine },' },
];

export async function measure(
  external: string[] = [],
  alias: Record<string, string> = {},
  stdin?: { contents: string; sourcefile: string },
): Promise<EdgeBundleSize> {
  const entry = stdin === undefined ? { entryPoints: { worker: ENTRY } } : { stdin };
  const { result, errors, nodeImports } = await bundleEdge({ ...entry, platform: 'browser', minify: true, external, alias });
  if (errors.length > 0) throw new Error(formatMessages(errors));
  if (nodeImports.length > 0) throw new Error(`the Worker bundle imports Node built-ins: ${nodeImports.map((i) => `${i.path} ← ${i.importer}`).join(', ')}`);
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.contents;
  const output = Object.values(result.metafile.outputs)[0]!;
  const byGroup = new Map<string, number>();
  const byPart = new Map<string, number>(PARTS.map(([name]) => [name, 0]));
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const name = groupOf(input);
    byGroup.set(name, (byGroup.get(name) ?? 0) + bytesInOutput);
    const part = partOf(input) ?? (name.startsWith('@tollgate/') ? `rest of ${name}` : name);
    byPart.set(part, (byPart.get(part) ?? 0) + bytesInOutput);
  }
  const sorted = (m: Map<string, number>) => [...m].map(([name, minified]) => ({ name, minified })).sort((a, b) => b.minified - a.minified);
  return { minified: code.byteLength, gzipped: gzipSync(code).byteLength, groups: sorted(byGroup), parts: sorted(byPart) };
}

/** The same Worker bundled with esbuild's code splitting: the entry chunk first, then the chunks loaded on demand. */
export async function measureSplit(): Promise<Chunk[]> {
  const { result, errors } = await bundleEdge({ entryPoints: { worker: ENTRY }, platform: 'browser', minify: true, splitting: true });
  if (errors.length > 0) throw new Error(formatMessages(errors));
  const chunks = result.outputFiles
    .filter((f) => f.path.endsWith('.js'))
    .map((f) => {
      const [, output] = Object.entries(result.metafile.outputs).find(([path]) => f.path.endsWith(path))!;
      const groups = [...new Set(Object.keys(output.inputs).map(groupOf))];
      return { entryPoint: output.entryPoint, groups, minified: f.contents.byteLength, gzipped: gzipSync(f.contents).byteLength };
    });
  return chunks.sort((a, b) => Number(b.entryPoint === ENTRY) - Number(a.entryPoint === ENTRY) || b.minified - a.minified);
}

/** One module bundled alone (minified ESM, browser platform): its minified and gzipped bytes. */
async function moduleSize(contents: string): Promise<{ minified: number; gzipped: number }> {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.byteLength, gzipped: gzipSync(code).byteLength };
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const size = await measure();
  const ratio = size.gzipped / TARGET_GZIP_BYTES;
  const all = await measure([], ALL_FORMATS);
  const allRatio = all.gzipped / TARGET_GZIP_BYTES;
  const codecsOf = (s: EdgeBundleSize) => kib(s.groups.find((g) => g.name === '@tollgate/codecs')?.minified ?? 0);
  const share = (minified: number) => `~${kib((minified / size.minified) * size.gzipped)} gz`;
  const marginal: string[] = [];
  for (const dep of DEPENDENCIES) {
    const without = await measure([dep]);
    marginal.push(`${dep} ${kib(size.minified - without.minified)} minified, ${kib(size.gzipped - without.gzipped)} gzipped`);
  }
  // What each opt-in of the minimal entry adds to the Worker, alone and all together.
  const variant = (o: (typeof OPT_INS)[number][]) => measure([], {}, workerWith(o.map((x) => x.imports).join('\n'), o.map((x) => x.options).join('\n')));
  const baseline = await variant([]);
  const added = (s: EdgeBundleSize) => `+${kib(s.minified - baseline.minified)} minified, +${kib(s.gzipped - baseline.gzipped)} gzipped`;
  const optIns: string[] = [];
  for (const o of OPT_INS) optIns.push(`${o.name} ${added(await variant([o]))}`);
  const everything = await variant(OPT_INS);
  optIns.push(
    `all ${OPT_INS.length} ${added(everything)} (gzipped ${kib(everything.gzipped)} = ${(everything.gzipped / TARGET_GZIP_BYTES).toFixed(2)}× the target)`,
  );
  // The settle retries' backoff replaced p-retry (and is-network-error) for these bytes; a differential test holds it to the library.
  const ownBackoff = await moduleSize("export { retry } from './packages/core/src/util/backoff.ts';");
  const pRetry = await moduleSize("export { default } from 'p-retry';");
  const [entry, ...rest] = (await measureSplit()) as [Chunk, ...Chunk[]];
  const lazy = rest.filter((c) => c.minified >= 512);
  const lines = [
    `entry ${ENTRY}: esbuild, ESM, minified, platform browser with workerd/worker/browser conditions; createWorker from @tollgate/adapters-edge/minimal with the 2 codecs it serves (openai_chat, anthropic_messages)`,
    `the example Worker, 2 formats: minified ${kib(size.minified)}, gzipped ${kib(size.gzipped)} = ${ratio.toFixed(2)}× the ${kib(TARGET_GZIP_BYTES)} target (${ratio <= 1 ? 'within' : 'over'}); @tollgate/codecs ${codecsOf(size)} minified`,
    `for comparison, the same Worker on @tollgate/adapters-edge (all 5 formats, the default entry; not what the target is measured on): minified ${kib(all.minified)}, gzipped ${kib(all.gzipped)} = ${allRatio.toFixed(2)}× the target (${allRatio <= 1 ? 'within' : 'over'}); @tollgate/codecs ${codecsOf(all)} minified`,
    `below: the example Worker (2 formats)`,
    `by package (minified; gzip share estimated pro rata): ${size.groups
      .filter((g) => g.minified >= 512)
      .map((g) => `${g.name} ${kib(g.minified)} (${share(g.minified)})`)
      .join(', ')}`,
    `by part (minified; gzip share estimated pro rata; "rest of" one of our packages is what no named part holds): ${size.parts
      .filter((p) => p.minified >= 512 || PARTS.some(([name]) => name === p.name))
      .map((p) => `${p.name} ${kib(p.minified)} (${share(p.minified)})`)
      .join(', ')}`,
    `what each dependency adds (bundle with it minus bundle without it): ${marginal.join('; ')}`,
    `what each opt-in of the minimal entry adds to the Worker (the root entry has them all): ${optIns.join('; ')}`,
    `settle retries, bundled alone: core's util/backoff.ts ${ownBackoff.minified} B minified, ${ownBackoff.gzipped} B gzipped vs p-retry 7 with is-network-error ${pRetry.minified} B minified, ${pRetry.gzipped} B gzipped (${(ownBackoff.gzipped / pRetry.gzipped).toFixed(2)}×; p-retry was replaced for this, held to it by packages/core/src/util/backoff.test.ts)`,
    `with esbuild code splitting (dynamic imports in their own chunks; Wrangler does not split): entry chunk minified ${kib(entry.minified)}, gzipped ${kib(entry.gzipped)} = ${(entry.gzipped / TARGET_GZIP_BYTES).toFixed(2)}× the target; loaded on first use: ${
      lazy.map((c) => `${c.groups.join(' + ')} ${kib(c.minified)} minified, ${kib(c.gzipped)} gzipped`).join('; ') || 'nothing'
    }`,
  ];
  return { name: 'adapters-edge: Worker bundle size', lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await run();
  console.log(`# ${result.name}`);
  for (const line of result.lines) console.log(`- ${line}`);
}
