import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const MOCHA = join(REPO, 'node_modules', 'mocha', 'bin', 'mocha.js');
const FIXTURE = fileURLToPath(new URL('./fixtures/leaves-a-timer.ts', import.meta.url));

/** Runs the fixture under mocha with only the linger hook; resolves to its exit code and stderr. */
function runFixture(leak: boolean): Promise<{ code: number | null; stderr: string; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'orbitkv-linger-'));
  const config = join(dir, 'mocharc.json');
  writeFileSync(config, JSON.stringify({ import: 'tsx', reporter: 'dot', require: [join(REPO, 'spec/support/linger.ts')] }));
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MOCHA, '--config', config, FIXTURE], {
      cwd: REPO,
      env: { ...process.env, ORBITKV_SPEC_LINGER_MS: '1000', ORBITKV_FIXTURE_LEAK: leak ? '1' : '0', ORBITKV_SPEC_LINGER_TRACE: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    // Bounded here too: a hook that never fires would hang this spec, not just the suite.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stderr, ms: Date.now() - started });
    });
  });
}

describe('spec/support: the suite process exits on its own', () => {
  it('a spec that passes but leaves a timer fails the run (exit 1) naming the timer and where it was made', async () => {
    const r = await runFixture(true);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /still alive 1 s after its last spec; still open: .*Timeout/);
    assert.match(r.stderr, /leaves-a-timer\.ts/, 'the trace names the file that made it');
  });

  it('a suite that leaves nothing exits 0 without waiting for the bound', async () => {
    const r = await runFixture(false);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /still alive/);
  });
});
