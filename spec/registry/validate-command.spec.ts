import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { embeddedRegistryDir } from '../../engine/registry/index.js';
import { captureIo } from '../support/io.js';
import { MINIMAL, TODAY, removeTempRegistries, tempRegistry } from './registry-fixture.js';

describe('cli/validate', () => {
  after(removeTempRegistries);

  it('exits 0 on the embedded registry (warnings allowed)', async () => {
    const io = captureIo();
    assert.equal(await runCli(['validate', '--registry', embeddedRegistryDir()], io), 0, io.stdout);
    assert.match(io.stdout, /(no problems in \d+ contracts|\d+ warnings? in \d+ files?)\n$/);
  });

  it('exits 0 and counts the contracts of a clean registry', async () => {
    const io = captureIo();
    assert.equal(await runCli(['validate', '--registry', MINIMAL, '--today', TODAY], io), 0);
    assert.equal(io.stdout, 'no problems in 12 contracts\n');
  });

  it('exits 1 on errors, with paths relative to the working directory', async () => {
    const dir = tempRegistry([{ file: 'gates/gate.alpha.lookup.yaml', replace: ['scenario: lookup-states', 'scenario: nope'] }]);
    const io = captureIo(join(dir, '..'));
    assert.equal(await runCli(['validate', '--registry', dir, '--today', TODAY], io), 1);
    const name = dir.slice(dir.lastIndexOf('/') + 1);
    assert.match(io.stdout, new RegExp(`^${name}/gates/gate\\.alpha\\.lookup\\.yaml:10:13 - error OKV3012: `, 'm'));
    assert.match(io.stdout, /1 error in 1 file\n$/);
  });

  it('exits 0 with warnings only', async () => {
    const io = captureIo();
    assert.equal(await runCli(['validate', '--registry', MINIMAL, '--today', '2027-06-01'], io), 0);
    assert.match(io.stdout, /warning OKV3017/);
  });

  it('--format json and github are machine-readable', async () => {
    const dir = tempRegistry([{ file: 'gates/gate.alpha.lookup.yaml', replace: ['scenario: lookup-states', 'scenario: nope'] }]);
    const json = captureIo(dir);
    assert.equal(await runCli(['validate', '--registry', dir, '--format', 'json', '--today', TODAY], json), 1);
    const report = JSON.parse(json.stdout) as { diagnostics: Array<{ code: string; file: string; line: number; col: number }>; counts: { errors: number; contracts: number } };
    assert.deepEqual(report.diagnostics.map((d) => [d.code, d.file, d.line, d.col]), [['OKV3012', 'gates/gate.alpha.lookup.yaml', 10, 13]]);
    assert.deepEqual([report.counts.errors, report.counts.contracts], [1, 12]);
    const gh = captureIo(dir);
    assert.equal(await runCli(['validate', '--registry', dir, '--format', 'github', '--today', TODAY], gh), 1);
    assert.match(gh.stdout, /^::error file=gates\/gate\.alpha\.lookup\.yaml,line=10,col=13,.*title=OKV3012::/m);
  });

  it('defaults to ./contracts, else the shipped registry', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'okv-cwd-'));
    try {
      const shipped = captureIo(cwd);
      assert.equal(await runCli(['validate', '--format', 'json'], shipped), 0);
      assert.ok((JSON.parse(shipped.stdout) as { counts: { contracts: number } }).counts.contracts > 50);
      mkdirSync(join(cwd, 'contracts'));
      const local = captureIo(cwd);
      assert.equal(await runCli(['validate', '--format', 'json'], local), 0);
      assert.equal((JSON.parse(local.stdout) as { counts: { contracts: number } }).counts.contracts, 0);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('exits 2 (usage) when the registry folder does not exist', async () => {
    const io = captureIo();
    assert.equal(await runCli(['validate', '--registry', '/nonexistent/okv'], io), 2);
    assert.match(io.stderr, /error OKV1001/);
  });

  for (const argv of [['--format', 'xml'], ['--frobnicate'], ['extra'], ['--today', 'yesterday']]) {
    it(`exits 2 on usage errors: ${argv.join(' ')}`, async () => {
      const io = captureIo();
      assert.equal(await runCli(['validate', ...argv], io), 2);
      assert.match(io.stderr, /^orbitkv validate: /);
    });
  }
});
