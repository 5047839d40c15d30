import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    redis: 'src/redis.ts',
    postgres: 'src/postgres.ts',
    express: 'src/express.ts',
    fastify: 'src/fastify.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: true,
  target: 'node20',
  platform: 'node',
  treeshake: true,
});
