import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    minimal: 'src/minimal.ts',
    testing: 'src/testing.ts',
    dlp: 'src/dlp/index.ts',
    'aws-sigv4': 'src/aws-sigv4.ts',
    'google-service-account': 'src/google-service-account.ts',
    tokenizers: 'src/tokenizers.ts',
    kinds: 'src/kinds.ts',
    telemetry: 'src/telemetry/index.ts',
    jwt: 'src/jwt.ts',
    content: 'src/content.ts',
  },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  treeshake: true,
});
