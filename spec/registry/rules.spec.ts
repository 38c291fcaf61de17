import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE, errorCount } from '../../engine/diagnostics/index.js';
import { RULES, embeddedRegistryDir, loadRegistry, validateRegistry } from '../../engine/registry/index.js';
import { FAILING, PASSING } from './rule-cases.js';
import { MINIMAL, TODAY, findings, removeTempRegistries, tempRegistry } from './registry-fixture.js';

const RULES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'engine', 'registry', 'rules');

describe('registry/rules', () => {
  after(removeTempRegistries);

  it('the minimal fixture registry passes every rule', () => {
    assert.deepEqual(findings(MINIMAL), []);
  });

  describe('each failing case reports exactly its codes at their positions', () => {
    for (const c of FAILING) {
      it(c.name, () => assert.deepEqual(findings(tempRegistry(c.edits)), c.expect));
    }
  });

  describe('each passing case reports nothing', () => {
    for (const c of PASSING) {
      it(c.name, () => assert.deepEqual(findings(tempRegistry(c.edits)), []));
    }
  });

  it('every rule lives in a file named by its id and reports only catalogue keys', () => {
    const files = readdirSync(RULES_DIR).filter((f) => f.endsWith('.ts') && f !== 'rule.ts' && f !== 'index.ts').map((f) => f.slice(0, -3)).sort();
    assert.deepEqual(RULES.map((r) => r.id).sort(), files);
    for (const rule of RULES) {
      assert.ok(rule.reports.length > 0, rule.id);
      for (const key of rule.reports) assert.ok(key in CATALOGUE, `${rule.id} reports unknown key ${key}`);
    }
  });

  it('every code a rule reports is triggered by a failing case named for that rule', () => {
    for (const rule of RULES) {
      const cases = FAILING.filter((c) => c.name.startsWith(`${rule.id}:`));
      assert.ok(cases.length > 0, `no failing case for ${rule.id}`);
      const seen = new Set(cases.flatMap((c) => c.expect.map((f) => f.code)));
      for (const key of rule.reports) assert.ok(seen.has(CATALOGUE[key].code), `${rule.id}: no case triggers ${CATALOGUE[key].code}`);
    }
  });

  it('suggests the nearest id for an unresolved reference', () => {
    const dir = tempRegistry([{ file: 'hooks/hook.alpha.kept.yaml', replace: ['    - gate.alpha.lookup', '    - gate.alpha.lookpu'] }]);
    const { registry } = loadRegistry(dir);
    const [d] = validateRegistry(registry, { today: TODAY });
    assert.equal(d?.code, 'OKV3002');
    assert.match(d?.hint ?? '', /gate\.alpha\.lookup/);
    assert.equal(d?.contract, 'hook.alpha.kept');
  });

  it('the embedded registry has no errors', () => {
    const { registry, diagnostics } = loadRegistry(embeddedRegistryDir());
    const all = [...diagnostics, ...validateRegistry(registry, { today: TODAY })];
    assert.equal(errorCount(all), 0, JSON.stringify(all.filter((d) => d.severity === 'error'), null, 1));
    assert.ok(registry.entries.length > 50);
  });
});
