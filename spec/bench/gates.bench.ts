/**
 * The main job with its gates: `orbitkv start` (what `npm start` runs once set up: validate,
 * generate, every CPU gate on a copy of the embedded registry against real Managers and
 * stand-ins, the board) against `orbitkv check` (the same steps without the gates), wall time,
 * with the load average before and after (the machine is shared: say how busy it was).
 * Target: the main job under 60 s.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { costRatio, printReport } from './report.js';

const repo = join(import.meta.dirname, '..', '..');
const main = join(repo, 'engine', 'cli', 'main.ts');
const out = mkdtempSync(join(tmpdir(), 'okv-bench-gates-'));

function timed(args: string[]): { seconds: number; status: number | null; tail: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { cwd: repo, encoding: 'utf8', env: { ...process.env, CI: '1' }, maxBuffer: 64 * 1024 * 1024 });
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, status: r.status, tail: `${r.stdout}${r.stderr}`.slice(-1500) };
}

const load0 = loadavg().map((x) => x.toFixed(2)).join(' ');
const check = timed(['check', '--out', join(out, 'check')]);
const start = timed(['start', '--out', join(out, 'start')]);
const load1 = loadavg().map((x) => x.toFixed(2)).join(' ');
rmSync(out, { recursive: true, force: true });
process.stdout.write(`load average before ${load0}, after ${load1}; check exit ${check.status}, start exit ${start.status}\n`);
if (start.status !== 0) process.stdout.write(start.tail);
printReport('gates', [
  { name: 'orbitkv start: validate, generate, CPU gates (real Managers), board', unit: 's', ours: start.seconds, peer: check.seconds, peerName: 'orbitkv check (no gates)', ratio: costRatio(start.seconds, check.seconds), target: '< 60 s' },
]);
process.exit(start.status === 0 ? 0 : 1);
