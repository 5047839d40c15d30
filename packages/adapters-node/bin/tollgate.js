#!/usr/bin/env node
// The `tollgate` command: runs the built CLI (packages/adapters-node/dist/cli.js).
import('../dist/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('cli.js')) {
    console.error('tollgate: the CLI is not built yet; run `npm run build` first.');
    process.exit(1);
  }
  throw error;
});
