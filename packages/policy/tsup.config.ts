import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', detectors: 'src/detect/index.ts' },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  treeshake: true,
});
