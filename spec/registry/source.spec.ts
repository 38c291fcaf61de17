import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isMap, isScalar } from 'yaml';
import { ContractSource, embeddedRegistryDir, listContractFiles, loadRegistry, loadRegistryParallel, rangeAtPath, validateRegistry } from '../../engine/registry/index.js';
import { topLevelScalarRange } from '../../engine/registry/source.js';
import { TODAY, removeTempRegistries, tempRegistry } from './registry-fixture.js';

describe('registry/source', () => {
  after(removeTempRegistries);

  it('the text fast path gives the parsed range for every top-level key and value it answers', () => {
    const root = embeddedRegistryDir();
    let answered = 0;
    for (const path of listContractFiles(root, [])) {
      const text = readFileSync(path, 'utf8');
      const parsed = new ContractSource(path, path, text);
      const contents = parsed.doc.contents;
      assert.ok(isMap(contents));
      for (const pair of contents.items) {
        assert.ok(isScalar(pair.key));
        const name = String(pair.key.value);
        for (const key of [false, true]) {
          const fast = topLevelScalarRange(text, name, key);
          if (!fast) continue;
          answered++;
          assert.deepEqual(fast, rangeAtPath(parsed, [name], key), `${path} ${name} key=${key}`);
        }
      }
    }
    assert.ok(answered > 500, `answered ${answered}`);
  });

  it('leaves multi-line, quoted, block and repeated keys to the parser', () => {
    assert.equal(topLevelScalarRange('a: >-\n  x\n', 'a', false), undefined);
    assert.equal(topLevelScalarRange("a: 'x'\n", 'a', false), undefined);
    assert.equal(topLevelScalarRange('a: x\n  continued\n', 'a', false), undefined);
    assert.equal(topLevelScalarRange('a: x\na: y\n', 'a', false), undefined);
    assert.equal(topLevelScalarRange('ab: x\n', 'a', false), undefined);
    assert.deepEqual(topLevelScalarRange('k: 1\na:  x y # note\n', 'a', false), { line: 2, col: 5, endLine: 2, endCol: 8 });
  });

  it('a released source parses again on demand and answers nested paths', () => {
    const { registry } = loadRegistry(embeddedRegistryDir());
    const entry = registry.entry('engine.vllm')!;
    assert.ok(entry.source instanceof ContractSource && !entry.source.isParsed);
    const at = registry.locate('engine.vllm', ['recordedIn', 1, 'commit']);
    assert.equal(at?.file, 'engines/engine.vllm.yaml');
    assert.ok(at!.range.line > 1 && at!.range.col > 1);
  });

  it('the parallel loader gives the same registry and diagnostics as the sequential one', async () => {
    const dir = tempRegistry([
      { file: 'gates/gate.alpha.lookup.yaml', replace: ['scenario: lookup-states', 'scenario: nope'] },
      { file: 'hooks/broken.yaml', text: 'kind: hook\nid: [x\n' },
      // No JSON form: must still arrive exactly.
      { file: 'rejections/rejection.alpha.v2.yaml', replace: ['      value: 1', '      value: .inf'] },
    ]);
    const a = loadRegistry(dir);
    const b = await loadRegistryParallel(dir, { threshold: 0, workers: 2 });
    assert.deepEqual(b.registry.contracts, a.registry.contracts);
    assert.ok(JSON.stringify(a.registry.get('rejection.alpha.v2')).includes('null'), 'the fixture holds a non-finite number');
    assert.deepEqual(b.diagnostics, a.diagnostics);
    assert.deepEqual(validateRegistry(b.registry, { today: TODAY }), validateRegistry(a.registry, { today: TODAY }));
    assert.deepEqual(b.registry.entries.map((e) => e.source.file), a.registry.entries.map((e) => e.source.file));
  });
});
