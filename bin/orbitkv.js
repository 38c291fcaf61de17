#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --min-semi-space-size=4 --max-semi-space-size=4 --no-allocation-site-pretenuring
// The published entry: runs the compiled CLI. `npm install` (prepare) builds dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const main = join(root, 'dist', 'engine', 'cli', 'main.js');
if (!existsSync(main)) {
  process.stderr.write(`orbitkv: the CLI is not built (${main} is missing); run \`npm run build\` in ${root}\n`);
  process.exit(2);
}
const { runCli } = await import(pathToFileURL(main).href);
process.exitCode = await runCli(process.argv.slice(2));
