/** The `tollgate` executable (the package bin imports the built copy): `tollgate serve | validate | key create`. */
import { runCli } from './run.js';

void runCli(process.argv.slice(2)).then((code) => {
  if (code !== null) process.exitCode = code;
});
