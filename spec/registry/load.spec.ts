import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, ftruncateSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_CONTRACT_BYTES, loadRegistry } from '../../engine/registry/index.js';
import { runCli } from '../../engine/cli/main.js';
import { captureIo } from '../support/io.js';
import { LOAD_CASES, UPSTREAM } from './load-cases.js';
import { finding, findings, removeTempRegistries, tempRegistry } from './registry-fixture.js';

describe('registry/load: bad input is a diagnostic, never a crash', () => {
  after(removeTempRegistries);

  for (const c of LOAD_CASES) {
    it(c.name, () => assert.deepEqual(findings(tempRegistry([{ file: c.file, text: c.text }], null)), c.expect));
  }

  it('the valid upstream the cases break loads clean (apart from its unpinned engine)', () => {
    const dir = tempRegistry([{ file: 'upstreams/upstream.alpha.101.yaml', text: UPSTREAM }], null);
    assert.deepEqual(findings(dir).map((f) => f.code), ['OKV3004']);
  });

  it('not-utf8: a file with a byte that is not UTF-8 reports its offset', () => {
    const dir = tempRegistry([], null);
    mkdirSync(join(dir, 'upstreams'));
    writeFileSync(join(dir, 'upstreams', 'bad.yaml'), Buffer.concat([Buffer.from('kind: upstream\ntitle: caf'), Buffer.from([0xe9, 0x0a])]));
    const { diagnostics } = loadRegistry(dir);
    assert.deepEqual(diagnostics.map((d) => [d.code, d.file]), [['OKV1003', 'upstreams/bad.yaml']]);
    assert.match(diagnostics[0]!.message, /\b25\b/);
  });

  it('file-too-large: a 50 MB file is refused before it is read', () => {
    const dir = tempRegistry([], null);
    const fd = openSync(join(dir, 'huge.yaml'), 'w');
    ftruncateSync(fd, 50 * 1024 * 1024);
    closeSync(fd);
    const started = Date.now();
    const { diagnostics } = loadRegistry(dir);
    assert.deepEqual(diagnostics.map(finding), [{ code: 'OKV1004', file: 'huge.yaml', line: 0, col: 0 }]);
    assert.ok(MAX_CONTRACT_BYTES < 50 * 1024 * 1024);
    assert.ok(Date.now() - started < 2000);
  });

  it('symlink-loop: a folder linking to its parent is reported once and not followed', () => {
    const dir = tempRegistry([{ file: 'upstreams/upstream.alpha.101.yaml', text: UPSTREAM }], null);
    symlinkSync('..', join(dir, 'upstreams', 'loop'));
    symlinkSync('self', join(dir, 'self'));
    const codes = loadRegistry(dir).diagnostics.map((d) => [d.code, d.file]);
    assert.deepEqual(codes, [['OKV1010', 'self'], ['OKV1010', 'upstreams/loop']]);
  });

  it('unreadable-file: a dangling link', () => {
    const dir = tempRegistry([], null);
    symlinkSync('missing.yaml', join(dir, 'dangling.yaml'));
    assert.deepEqual(loadRegistry(dir).diagnostics.map((d) => [d.code, d.file]), [['OKV1002', 'dangling.yaml']]);
  });

  it('unreadable-file: a FIFO named like a contract is reported, never opened (opening it would block)', () => {
    const dir = tempRegistry([], null);
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
    assert.deepEqual(loadRegistry(dir).diagnostics.map((d) => [d.code, d.file]), [['OKV1002', 'pipe.yaml']]);
  });

  it('registry-not-found: a folder that does not exist', () => {
    const { diagnostics, registry } = loadRegistry('/nonexistent/okv-registry');
    assert.deepEqual(diagnostics.map((d) => d.code), ['OKV1001']);
    assert.equal(registry.entries.length, 0);
  });

  it('validate exits 1 with diagnostics and no stack trace for every bad input at once', async () => {
    const dir = tempRegistry(LOAD_CASES.map((c, i) => ({ file: `case-${i}/${c.file}`, text: c.text })), null);
    writeFileSync(join(dir, 'binary.yaml'), Buffer.from([0xff, 0xfe, 0x00, 0x01]));
    symlinkSync('.', join(dir, 'loop'));
    for (const format of ['text', 'json', 'github']) {
      const io = captureIo(dir);
      assert.equal(await runCli(['validate', '--registry', dir, '--format', format], io), 1);
      assert.equal(io.stderr, '');
      assert.doesNotMatch(io.stdout, /\n\s+at .*\(.*:\d+:\d+\)/);
      for (const code of ['OKV1003', 'OKV1005', 'OKV1006', 'OKV1008', 'OKV1010', 'OKV2004']) assert.ok(io.stdout.includes(code), `${format}: ${code}`);
    }
  });
});
