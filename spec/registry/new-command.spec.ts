import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { CONTRACT_KINDS, KIND_FOLDERS } from '../../engine/model/index.js';
import { loadRegistry, validateRegistry } from '../../engine/registry/index.js';
import { captureIo } from '../support/io.js';
import { removeTempRegistries, tempRegistry } from './registry-fixture.js';

describe('cli/new', () => {
  after(removeTempRegistries);

  for (const kind of CONTRACT_KINDS) {
    it(`scaffolds a schema-valid ${kind} that validates with only FILL warnings and is fmt-clean`, async () => {
      const dir = tempRegistry();
      const id = `${kind}.alpha.scaffolded`;
      const io = captureIo(dir);
      assert.equal(await runCli(['new', kind, id, '--registry', dir], io), 0, io.stderr);
      const file = `${KIND_FOLDERS[kind]}/${id}.yaml`;
      if (kind === 'policy') assert.ok(file.startsWith('policies/'), 'policies live in policies/, like the embedded registry');
      const text = readFileSync(join(dir, file), 'utf8');
      assert.equal(text.split('\n')[0], `# yaml-language-server: $schema=../schema/${kind}.json`);
      const { registry, diagnostics } = loadRegistry(dir);
      assert.deepEqual(diagnostics, [], 'schema-valid');
      assert.equal(registry.get(id)?.kind, kind);
      const own = validateRegistry(registry).filter((d) => d.file === file);
      assert.ok(own.length > 0, 'lists what to fill');
      assert.deepEqual([...new Set(own.map((d) => d.code))], ['OKV3029']);
      // `new` printed the same list with positions.
      for (const d of own) assert.ok(io.stdout.includes(`${file}:${d.range!.line}:${d.range!.col} - warning OKV3029`), `${d.range!.line}:${d.range!.col}`);
      const fmt = captureIo(dir);
      assert.equal(await runCli(['fmt', '--check', '--registry', dir], fmt), 0, fmt.stdout);
    });
  }

  it('points references at real contracts of the right kind and engine', async () => {
    const dir = tempRegistry();
    assert.equal(await runCli(['new', 'rejection', 'rejection.alpha.new', '--registry', dir], captureIo(dir)), 0);
    assert.equal(await runCli(['new', 'hook', 'hook.alpha.new', '--registry', dir], captureIo(dir)), 0);
    const { registry } = loadRegistry(dir);
    const rejection = registry.get('rejection.alpha.new');
    const hook = registry.get('hook.alpha.new');
    assert.ok(rejection?.kind === 'rejection' && hook?.kind === 'hook');
    assert.deepEqual(rejection.justifiedBy, ['gap.alpha.ordering']);
    assert.equal(rejection.engine, 'alpha');
    assert.equal(registry.get(hook.removalGate.gates[0]!)?.kind, 'gate');
  });

  it('in an empty registry, validate lists the references still to create', async () => {
    const dir = tempRegistry([], null);
    const io = captureIo(dir);
    assert.equal(await runCli(['new', 'hook', 'hook.x.first', '--registry', dir, '--engine', 'xeng'], io), 0);
    const { registry } = loadRegistry(dir);
    const codes = validateRegistry(registry).map((d) => d.code);
    assert.ok(codes.includes('OKV3004'), 'unknown engine');
    assert.ok(codes.includes('OKV3002'), 'unresolved gate');
    assert.match(io.stdout, /error OKV3004/);
  });

  it('takes the upstream PR number from the id', async () => {
    const dir = tempRegistry();
    assert.equal(await runCli(['new', 'upstream', 'upstream.alpha.4242', '--registry', dir], captureIo(dir)), 0);
    const c = loadRegistry(dir).registry.get('upstream.alpha.4242');
    assert.ok(c?.kind === 'upstream');
    assert.equal(c.pr, 4242);
  });

  it('refuses to overwrite an existing file and exits 1', async () => {
    const dir = tempRegistry();
    const path = join(dir, 'hooks', 'hook.alpha.kept.yaml');
    const before = readFileSync(path, 'utf8');
    const io = captureIo(dir);
    assert.equal(await runCli(['new', 'hook', 'hook.alpha.kept', '--registry', dir], io), 1);
    assert.match(io.stderr, /already exists/);
    assert.equal(readFileSync(path, 'utf8'), before);
  });

  it('refuses an id another file already uses', async () => {
    const dir = tempRegistry();
    writeFileSync(join(dir, 'hooks', 'elsewhere.yaml'), readFileSync(join(dir, 'hooks', 'hook.alpha.kept.yaml'), 'utf8').replace('id: hook.alpha.kept', 'id: hook.alpha.taken'));
    const io = captureIo(dir);
    assert.equal(await runCli(['new', 'hook', 'hook.alpha.taken', '--registry', dir], io), 1);
    assert.match(io.stderr, /elsewhere\.yaml/);
  });

  for (const argv of [[], ['hook'], ['widget', 'widget.x'], ['hook', 'Hook_X'], ['hook', 'hook.x', 'extra'], ['hook', 'hook.x', '--engine', 'Bad Name'], ['hook', 'hook.x', '--frobnicate']]) {
    it(`exits 2 on usage errors: new ${argv.join(' ')}`, async () => {
      const io = captureIo();
      assert.equal(await runCli(['new', ...argv], io), 2);
      assert.match(io.stderr, /^orbitkv new: /);
    });
  }
});
