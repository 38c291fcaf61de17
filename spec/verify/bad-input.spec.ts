import { strict as assert } from 'node:assert';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { DEFAULT_MAX_FILE_BYTES, verifyEngine } from '../../engine/verify/index.js';
import { captureIo } from '../support/io.js';
import { checkout, embeddedRegistry, removeCheckouts, scratchDir } from './checkout.js';

const SGLANG = 'python/sglang/srt';

describe('verify: bad input', function () {
  after(removeCheckouts);

  it('a --source that is not a directory: OKV6003, nothing verified, exit 2', async function () {
    const file = join(scratchDir(), 'not-a-dir.py');
    writeFileSync(file, 'x = 1\n');
    for (const source of [file, join(scratchDir(), 'absent')]) {
      const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source });
      assert.equal(report.verdict, 'unusable');
      assert.deepEqual(report.diagnostics.map((d) => d.code), ['OKV6003']);
      const io = captureIo();
      assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', source], io), 2);
      assert.match(io.stdout, /OKV6003/);
    }
  });

  it('a checkout without the package: OKV6005, exit 2', async function () {
    const dir = scratchDir();
    mkdirSync(join(dir, 'python', 'other'), { recursive: true });
    writeFileSync(join(dir, 'python', 'other', '__init__.py'), '');
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir });
    assert.deepEqual(report.diagnostics.map((d) => d.code), ['OKV6005']);
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', dir], captureIo()), 2);
  });

  it('an engine the registry does not pin: OKV6004, exit 2', async function () {
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'tgi', source: checkout('sglang-0.5.21') });
    assert.deepEqual(report.diagnostics.map((d) => d.code), ['OKV6004']);
    assert.match(report.diagnostics[0]!.message, /sglang/);
  });

  it('a binary .py file is skipped with OKV6007; its targets are unresolvable, other files still checked', async function () {
    const dir = checkout('sglang-0.5.21');
    writeFileSync(join(dir, SGLANG, 'managers/tp_worker.py'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02, 0x00, 0xff]));
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.deepEqual(report.diagnostics.map((d) => `${d.code} ${d.file}`), [`OKV6007 ${SGLANG}/managers/tp_worker.py`]);
    const hook = report.targets.find((t) => t.contract === 'hook.sglang.init-cuda-graphs')!;
    assert.equal(hook.outcome, 'unresolvable-statically');
    assert.equal(hook.reason, 'file-skipped');
    assert.ok(report.files[`${SGLANG}/managers/tp_worker.py`], 'the bytes read are still hashed');
    assert.equal(report.targets.filter((t) => !t.informational && t.outcome !== 'present').length, 1);
  });

  it('Python that does not parse: the error nodes are reported, every other file still checked', async function () {
    const dir = checkout('sglang-0.5.21');
    writeFileSync(join(dir, SGLANG, 'managers/broken.py'), 'def ok():\n    return 1\n\nclass Broken(\n    def f(self:\n        pass\n\nprint("unterminated\n');
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    const syntax = report.diagnostics.filter((d) => d.code === 'OKV6006');
    assert.equal(syntax.length, 1);
    assert.equal(syntax[0]!.file, `${SGLANG}/managers/broken.py`);
    assert.ok(syntax[0]!.range!.line >= 4);
    assert.equal(report.verdict, 'ok');
  });

  it(`files over the size cap (${DEFAULT_MAX_FILE_BYTES} bytes) are skipped with OKV6008, not read`, async function () {
    const dir = checkout('sglang-0.5.21');
    const big = join(dir, SGLANG, 'managers/generated_tables.py');
    writeFileSync(big, `TABLE = [\n${'    0,\n'.repeat(Math.ceil((DEFAULT_MAX_FILE_BYTES + 1024) / 7))}]\n`);
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.deepEqual(report.diagnostics.map((d) => `${d.code} ${d.file}`), [`OKV6008 ${SGLANG}/managers/generated_tables.py`]);
    assert.equal(report.files[`${SGLANG}/managers/generated_tables.py`], undefined);
    assert.equal(report.verdict, 'ok');
    const small = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0, maxFileBytes: 1000 });
    assert.ok(small.diagnostics.filter((d) => d.code === 'OKV6008').length > 3, 'the cap is an option');
  });

  it('symbolic link loops are reported (OKV6009) and not followed; a second path to a folder is walked once', async function () {
    const dir = checkout('sglang-0.5.21');
    symlinkSync('..', join(dir, SGLANG, 'managers/parent_loop'));
    symlinkSync('self_loop', join(dir, SGLANG, 'self_loop'));
    symlinkSync('managers', join(dir, SGLANG, 'managers_alias'));
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.deepEqual(report.diagnostics.map((d) => `${d.code} ${d.file}`).sort(), [`OKV6009 ${SGLANG}/managers/parent_loop`, `OKV6009 ${SGLANG}/self_loop`]);
    assert.equal(report.scanned, 27, 'no file scanned twice');
    assert.equal(report.verdict, 'ok');
  });
});
