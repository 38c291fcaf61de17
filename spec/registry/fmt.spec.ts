import assert from 'node:assert/strict';
import { lstatSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runCli } from '../../engine/cli/main.js';
import { canonicalContractText, embeddedRegistryDir, listContractFiles } from '../../engine/registry/index.js';
import { captureIo } from '../support/io.js';
import { FIXTURES, MINIMAL, removeTempRegistries, tempRegistry } from './registry-fixture.js';

const MESSY = 'hooks/hook.alpha.messy.yaml';
const messyText = () => readFileSync(join(FIXTURES, 'fmt', MESSY), 'utf8');
const canonicalBaseline = () => readFileSync(join(FIXTURES, 'fmt-canonical', MESSY), 'utf8');

describe('registry/canonical and cli/fmt', () => {
  after(removeTempRegistries);

  it('formats a messy contract to the committed canonical baseline', () => {
    assert.equal(canonicalContractText(MESSY, messyText()), canonicalBaseline());
  });

  it('is idempotent and keeps the data, the comments and the block text', () => {
    const once = canonicalContractText(MESSY, messyText());
    assert.equal(canonicalContractText(MESSY, once), once);
    assert.deepEqual(parse(once), parse(messyText()));
    for (const comment of ['# A note about this file', '# why it stays', '# The target is the method']) assert.ok(once.includes(comment), comment);
    assert.ok(once.includes('  line breaks, however\n      they are indented inside.\n'));
  });

  it('puts the modeline first, keys in schema order top-level and nested, unknown keys last', () => {
    const lines = canonicalContractText(MESSY, messyText()).split('\n');
    assert.equal(lines[0], '# yaml-language-server: $schema=../schema/hook.json');
    const top = lines.filter((l) => /^[a-zA-Z]+:/.test(l)).map((l) => l.slice(0, l.indexOf(':')));
    assert.deepEqual(top, ['kind', 'id', 'title', 'source', 'engine', 'target', 'hookType', 'signature', 'protects', 'activation', 'replacement', 'removalGate', 'disposition', 'notes', 'unknownField']);
    const parameters = lines.slice(lines.indexOf('  parameters:') + 1, lines.indexOf('  parameters:') + 4).map((l) => l.trim().replace(/^- /, '').split(':')[0]);
    assert.deepEqual(parameters, ['name', 'kind', 'hasDefault']);
  });

  it('leaves every embedded contract unchanged (the shipped registry is fmt-clean)', () => {
    const root = embeddedRegistryDir();
    for (const path of listContractFiles(root, [])) {
      const text = readFileSync(path, 'utf8');
      assert.equal(canonicalContractText(path.slice(root.length + 1), text), text, path);
    }
  });

  it('fmt --check names the files that would change, writes nothing and exits 1', async () => {
    const dir = tempRegistry([{ file: MESSY, text: messyText() }]);
    const io = captureIo(dir);
    assert.equal(await runCli(['fmt', '--check', '--registry', dir], io), 1);
    assert.match(io.stdout, /^would reformat: hooks\/hook\.alpha\.messy\.yaml$/m);
    assert.equal(io.stdout.match(/would reformat/g)?.length, 1);
    assert.equal(readFileSync(join(dir, MESSY), 'utf8'), messyText());
  });

  it('fmt writes the canonical text atomically, then --check is clean', async () => {
    const dir = tempRegistry([{ file: MESSY, text: messyText() }]);
    const io = captureIo(dir);
    assert.equal(await runCli(['fmt', '--registry', dir], io), 0);
    assert.equal(readFileSync(join(dir, MESSY), 'utf8'), canonicalBaseline());
    assert.deepEqual(readdirSync(join(dir, 'hooks')).filter((f) => f.endsWith('.tmp')), []);
    const again = captureIo(dir);
    assert.equal(await runCli(['fmt', '--check', '--registry', dir], again), 0);
  });

  it('fmt FILES formats only the named files and keeps a symbolic link a link', async () => {
    const dir = tempRegistry([{ file: MESSY, text: messyText() }, { file: 'hooks/other.yaml', text: messyText().replace('id: hook.alpha.messy', 'id: other') }]);
    symlinkSync('hook.alpha.messy.yaml', join(dir, 'hooks', 'link.yaml'));
    const io = captureIo(dir);
    assert.equal(await runCli(['fmt', 'hooks/link.yaml'], io), 0);
    assert.ok(lstatSync(join(dir, 'hooks', 'link.yaml')).isSymbolicLink());
    assert.equal(readFileSync(join(dir, MESSY), 'utf8'), canonicalBaseline());
    assert.equal(readFileSync(join(dir, 'hooks/other.yaml'), 'utf8'), messyText().replace('id: hook.alpha.messy', 'id: other'));
  });

  for (const [name, text, code] of [
    ['a YAML syntax error', 'kind: hook\nid: [x\n', 'OKV1006'],
    ['a duplicate key', 'kind: hook\nid: x\nid: y\n', 'OKV1007'],
    ['an alias', 'kind: hook\nid: &a x\ntitle: *a\n', 'OKV1008'],
  ] as const) {
    it(`fmt refuses a file with ${name}: prints the diagnostic, leaves it untouched, exits 1`, async () => {
      const dir = tempRegistry([{ file: 'hooks/bad.yaml', text }]);
      const io = captureIo(dir);
      assert.equal(await runCli(['fmt', '--registry', dir], io), 1);
      assert.match(io.stdout, new RegExp(`^hooks/bad\\.yaml:\\d+:\\d+ - error ${code}: `, 'm'));
      assert.equal(readFileSync(join(dir, 'hooks/bad.yaml'), 'utf8'), text);
    });
  }

  it('fmt refuses non-UTF-8 bytes without writing', async () => {
    const dir = tempRegistry();
    const bytes = Buffer.from([0x6b, 0x69, 0x6e, 0x64, 0x3a, 0x20, 0xff, 0x0a]);
    writeFileSync(join(dir, 'hooks', 'binary.yaml'), bytes);
    const io = captureIo(dir);
    assert.equal(await runCli(['fmt', '--registry', dir], io), 1);
    assert.match(io.stdout, /error OKV1003/);
    assert.deepEqual(readFileSync(join(dir, 'hooks', 'binary.yaml')), bytes);
  });

  it('fmt leaves the minimal registry as it is', async () => {
    const io = captureIo();
    assert.equal(await runCli(['fmt', '--check', '--registry', MINIMAL], io), 0, io.stdout);
  });

  for (const argv of [['--frobnicate'], ['no/such/file.yaml']]) {
    it(`fmt exits 2 on usage errors: ${argv.join(' ')}`, async () => {
      const io = captureIo();
      assert.equal(await runCli(['fmt', ...argv], io), 2);
    });
  }
});
