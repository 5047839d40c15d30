import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Package names resolve to their sources, so tests need no build step.
// Subpaths come first: the alias list is matched in order.
const alias = [
  { find: /^@tollgate\/policy\/detectors$/, replacement: src('./packages/policy/src/detect/index.ts') },
  { find: /^@tollgate\/core\/dlp$/, replacement: src('./packages/core/src/dlp/index.ts') },
  { find: /^@tollgate\/core\/telemetry$/, replacement: src('./packages/core/src/telemetry/index.ts') },
  { find: /^@tollgate\/core\/jwt$/, replacement: src('./packages/core/src/jwt.ts') },
  { find: /^@tollgate\/core\/content$/, replacement: src('./packages/core/src/content.ts') },
  { find: /^@tollgate\/core\/testing$/, replacement: src('./packages/core/src/testing.ts') },
  { find: /^@tollgate\/core\/minimal$/, replacement: src('./packages/core/src/minimal.ts') },
  { find: /^@tollgate\/core\/aws-sigv4$/, replacement: src('./packages/core/src/aws-sigv4.ts') },
  { find: /^@tollgate\/core\/google-service-account$/, replacement: src('./packages/core/src/google-service-account.ts') },
  { find: /^@tollgate\/core\/tokenizers$/, replacement: src('./packages/core/src/tokenizers.ts') },
  { find: /^@tollgate\/core\/kinds$/, replacement: src('./packages/core/src/kinds.ts') },
  { find: /^@tollgate\/adapters-edge\/minimal$/, replacement: src('./packages/adapters-edge/src/minimal.ts') },
  { find: /^@tollgate\/codecs\/base$/, replacement: src('./packages/codecs/src/base.ts') },
  {
    find: /^@tollgate\/codecs\/(openai-chat|openai-responses|anthropic-messages|anthropic-vertex|gemini|bedrock-converse|kinds)$/,
    replacement: src('./packages/codecs/src/entries/$1.ts'),
  },
  { find: /^@tollgate\/adapters-node\/(redis|postgres|express|fastify)$/, replacement: src('./packages/adapters-node/src/$1.ts') },
  { find: /^@tollgate\/(policy|codecs|core|adapters-node|adapters-edge)$/, replacement: src('./packages/$1/src/index.ts') },
];

export default defineConfig({
  resolve: { alias },
  test: {
    // A guard against hangs, not a speed target (those are benchmarks): wide enough that a test
    // doing real work (property runs, 1 MB scans, real sockets) passes on a loaded 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'policy', include: ['packages/policy/src/**/*.test.ts'] } },
      { extends: true, test: { name: 'codecs', include: ['packages/codecs/src/**/*.test.ts'] } },
      { extends: true, test: { name: 'core', include: ['packages/core/src/**/*.test.ts'] } },
      { extends: true, test: { name: 'adapters-node', include: ['packages/adapters-node/src/**/*.test.ts'] } },
      { extends: true, test: { name: 'adapters-edge', include: ['packages/adapters-edge/src/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
    ],
  },
});
