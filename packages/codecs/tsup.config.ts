import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    base: 'src/base.ts',
    'openai-chat': 'src/entries/openai-chat.ts',
    'openai-responses': 'src/entries/openai-responses.ts',
    'anthropic-messages': 'src/entries/anthropic-messages.ts',
    'anthropic-vertex': 'src/entries/anthropic-vertex.ts',
    gemini: 'src/entries/gemini.ts',
    'bedrock-converse': 'src/entries/bedrock-converse.ts',
    kinds: 'src/entries/kinds.ts',
  },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  treeshake: true,
});
