import { strict as assert } from 'node:assert';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { foldLedger, ledgerFiles, readLedgerFile } from '../../engine/lifecycle/index.js';
import { loadRegistry } from '../../engine/registry/index.js';
import type { VerifyReport } from '../../engine/verify/index.js';
import { captureIo } from '../support/io.js';
import { ENGINE_FIXTURES, REPO, checkout, removeCheckouts, scratchDir } from './checkout.js';

const PINNED_SGLANG = join(ENGINE_FIXTURES, 'sglang-0.5.21');

/** A private copy of the embedded registry, so recording never touches the committed ledger. */
function registryCopy(): string {
  const dir = join(scratchDir(), 'contracts');
  cpSync(join(REPO, 'contracts'), dir, { recursive: true });
  return dir;
}

describe('orbitkv verify (command line)', function () {
  after(removeCheckouts);

  it('prints one line per checked symbol or assertion and exits 0 when everything holds', async function () {
    const cache = scratchDir('okv-cli-cache-');
    const io = captureIo(REPO, { ORBITKV_CACHE_DIR: cache });
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', PINNED_SGLANG], io), 0);
    const lines = io.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^verify sglang: .*sglang-0\.5\.21 \(package python\/sglang, 27 Python files, 27 parsed, 0 from cache, grammar python 0\.25\.0\)$/);
    const again = captureIo(REPO, { ORBITKV_CACHE_DIR: cache });
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', PINNED_SGLANG], again), 0);
    assert.match(again.stdout, /27 Python files, 0 parsed, 27 from cache,/);
    assert.equal(again.stdout.split('\n').slice(1).join('\n'), io.stdout.split('\n').slice(1).join('\n'), 'the same results');
    const uncached = captureIo(REPO, { ORBITKV_CACHE_DIR: cache });
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', PINNED_SGLANG, '--no-cache'], uncached), 0);
    assert.match(uncached.stdout, /27 Python files, grammar/);
    assert.match(lines[1]!, /^version +version 0\.5\.21 \(python\/sglang\/_version\.py\) = pin; commit unknown/);
    const json = captureIo(REPO);
    await runCli(['verify', '--engine', 'sglang', '--source', PINNED_SGLANG, '--format', 'json'], json);
    const report = JSON.parse(json.stdout) as VerifyReport;
    const partLines = report.assertions.reduce((n, a) => n + 1 + (a.parts?.length ?? 0), 0);
    assert.equal(lines.length, 2 + report.targets.length + partLines + 1);
    assert.match(lines[lines.length - 1]!, /^ok: 34 target\(s\), 5 assertion\(s\): 32 present, 2 missing, 5 holds \(9 removed-hook target\(s\) informational\)$/);
    assert.equal(report.verdict, 'ok');
    assert.equal(report.engine, 'sglang');
  });

  it('exits 2 on usage errors', async function () {
    for (const argv of [['verify', '--source', PINNED_SGLANG], ['verify', '--engine', 'sglang'], ['verify', '--engine', 'sglang', '--source', PINNED_SGLANG, '--format', 'xml'], ['verify', '--engine', 'sglang', '--source', PINNED_SGLANG, '--bogus'], ['verify', '--engine', 'nope', '--source', PINNED_SGLANG], ['verify', '--engine', 'sglang', '--source', PINNED_SGLANG, '--registry', join(scratchDir(), 'missing')]]) {
      const io = captureIo(REPO);
      assert.equal(await runCli(argv, io), 2, argv.join(' '));
    }
    const help = captureIo(REPO);
    assert.equal(await runCli(['verify', '--help'], help), 0);
    assert.match(help.stdout, /--record/);
  });

  it('--record appends one verify record per hook, interface and gap, with file hashes, and the lifecycles see them', async function () {
    const registryDir = registryCopy();
    const before = readLedgerFile(ledgerFiles(registryDir)).records.length;
    const source = checkout('sglang-0.5.21', 'sglang-0.5.21-lookup-ticket');
    const io = captureIo(REPO, { USER: 'ci-verify' });
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', source, '--registry', registryDir, '--record'], io), 1, io.stdout + io.stderr);
    const { registry } = loadRegistry(registryDir);
    const records = readLedgerFile(ledgerFiles(registryDir)).records.slice(before);
    const hooks = registry.ofKind('hook').filter((h) => h.engine === 'sglang').length;
    const interfaces = registry.ofKind('interface').filter((i) => i.engine === 'sglang').length;
    const gaps = registry.ofKind('gap').filter((g) => g.engine === 'sglang').length;
    assert.equal(records.length, hooks + interfaces + gaps);
    assert.match(io.stdout, new RegExp(`${records.length} evidence record\\(s\\) appended`));
    const gap = records.find((r) => r.subject === 'gap.sglang.lookup-ready-boundaries')!;
    assert.equal(gap.type, 'verify.assertion');
    assert.equal(gap.actor, 'ci-verify');
    assert.equal(gap.data.result, 'no-longer-holds');
    assert.deepEqual(gap.profile, { engines: { sglang: { version: '0.5.21' } } });
    const linkerFile = 'python/sglang/srt/mem_cache/unified_cache/unified_cache_linker.py';
    const files = (gap.data as { files: Record<string, string> }).files;
    assert.deepEqual(Object.keys(files), [linkerFile]);
    assert.match(files[linkerFile]!, /^[0-9a-f]{64}$/);
    assert.notEqual(files[linkerFile], (await import('node:crypto')).createHash('sha256').update(readFileSync(join(PINNED_SGLANG, linkerFile))).digest('hex'), 'the drifted file was hashed, not the pinned one');
    const hook = records.find((r) => r.subject === 'hook.sglang.prefill-add-one-req')!;
    assert.equal(hook.type, 'verify.target');
    assert.equal(hook.data.result, 'present');
    const fold = foldLedger(registry, readLedgerFile(ledgerFiles(registryDir)).records);
    assert.equal((fold.contracts['gap.sglang.lookup-ready-boundaries']?.context as { verify?: { result: string } }).verify?.result, 'no-longer-holds');
  });

  it('--record --key signs every record it appends; a registry with trusted signers refuses an unsigned run and appends nothing', async function () {
    const registryDir = registryCopy();
    const keys = join(REPO, 'spec', 'fixtures', 'keys');
    const pub = readFileSync(join(keys, 'maintainer.pub'), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
    const history = readLedgerFile(ledgerFiles(registryDir)).records;
    const last = history[history.length - 1]!;
    writeFileSync(join(registryDir, 'evidence', 'allowed_signers'), `# evidence-ledger unsigned-history ${last.seq} ${last.hash}\nci-verify ${pub} maintainer\n`);
    const source = checkout('sglang-0.5.21');
    const unsigned = captureIo(REPO, { USER: 'ci-verify' });
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', source, '--registry', registryDir, '--record'], unsigned), 1);
    assert.match(unsigned.stderr + unsigned.stdout, /OKV4305/);
    assert.equal(readLedgerFile(ledgerFiles(registryDir)).records.length, history.length, 'nothing appended unsigned');
    const badKey = captureIo(REPO, { USER: 'ci-verify' });
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', source, '--registry', registryDir, '--record', '--key', join(keys, 'encrypted')], badKey), 1);
    assert.match(badKey.stderr, /OKV4307/);
    assert.equal(readLedgerFile(ledgerFiles(registryDir)).records.length, history.length, 'an unusable key appends nothing');
    const signed = captureIo(REPO, { USER: 'ci-verify' });
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', source, '--registry', registryDir, '--record', '--key', join(keys, 'maintainer')], signed), 0, signed.stdout + signed.stderr);
    const appended = readLedgerFile(ledgerFiles(registryDir)).records.slice(history.length);
    assert.ok(appended.length > 0);
    assert.ok(appended.every((r) => typeof r.signature === 'string' && r.actor === 'ci-verify'), 'every appended record is signed');
    const check = captureIo(REPO);
    assert.equal(await runCli(['evidence', 'verify', '--registry', registryDir], check), 0, check.stderr);
    assert.match(check.stdout, new RegExp(`${appended.length} signed by trusted keys`));
    const usage = captureIo(REPO);
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', source, '--registry', registryDir, '--key', join(keys, 'maintainer')], usage), 2, '--key without --record');
  });

  it('--record refuses to bind results to a profile the checkout does not prove', async function () {
    const registryDir = registryCopy();
    const before = readLedgerFile(ledgerFiles(registryDir)).records.length;
    const source = checkout('sglang-0.5.21');
    (await import('node:fs')).writeFileSync(join(source, 'python/sglang/_version.py'), '__version__ = "0.5.23"\n');
    const io = captureIo(REPO, { USER: 'ci-verify' });
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', source, '--registry', registryDir, '--record'], io), 1);
    assert.match(io.stdout, /OKV6011/);
    assert.equal(readLedgerFile(ledgerFiles(registryDir)).records.length, before, 'the ledger refuses evidence off the pins');
  });
});
