import assert from 'node:assert/strict';
import { SCENARIOS, scenario } from '../../engine/gates/index.js';
import { embeddedRegistryDir, loadRegistry } from '../../engine/registry/index.js';

describe('gates/scenarios', () => {
  it('names are unique kebab-case and each says what it needs and exercises', () => {
    assert.equal(new Set(SCENARIOS.map((s) => s.name)).size, SCENARIOS.length);
    for (const s of SCENARIOS) {
      assert.match(s.name, /^[a-z]+(-[a-z]+)*$/);
      assert.ok(s.needs === 'cpu' || s.needs === 'gpu');
      assert.ok(s.exercises.length > 0 && s.description.length > 0);
      assert.equal(scenario(s.name), s);
    }
    assert.equal(scenario('no-such-scenario'), undefined);
  });

  it('is exactly the set of scenarios the embedded runnable gates use, with matching GPU needs', () => {
    const gates = loadRegistry(embeddedRegistryDir()).registry.ofKind('gate');
    const used = new Map<string, boolean>();
    for (const g of gates) if (g.scenario.runner === 'orbitkv') used.set(g.scenario.scenario, g.environment.gpu);
    assert.deepEqual([...used.keys()].sort(), SCENARIOS.map((s) => s.name).sort());
    for (const [name, gpu] of used) assert.equal(scenario(name)!.needs === 'gpu', gpu, name);
  });
});
