/**
 * `npm run bench`: runs every `spec/bench/*.bench.ts` in its own process (so one bench's heap
 * and JIT state never colour another's) and forwards their output. `npm run bench -- NAME`
 * runs the benches whose file name contains NAME.
 */
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const benches = readdirSync(here).filter((f) => f.endsWith('.bench.ts') && f.includes(filter)).sort();
if (benches.length === 0) {
  process.stderr.write(`bench: no spec/bench/*.bench.ts matches '${filter}'\n`);
  process.exit(2);
}
let failed = 0;
for (const file of benches) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    process.stderr.write(`bench: ${file} exited ${r.status ?? r.signal}\n`);
  }
}
process.exit(failed ? 1 : 0);
