import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { LabelTally } from '../../engine/runtime/metrics/index.js';

describe('runtime/metrics/label-tally: a counter whose hot path is a plain number', () => {
  const series = async (registry: Registry) => {
    const [metric] = await registry.getMetricsAsJSON();
    return Object.fromEntries(metric!.values.map((v) => [String(Object.values(v.labels)[0]), v.value]));
  };

  it('hands prom-client what was added since the last scrape: every scrape shows the running totals', async () => {
    const registry = new Registry();
    const tally = new LabelTally({ name: 'spec_total', help: 'spec', label: 'outcome', registers: [registry] });
    tally.add('ready');
    tally.add('ready');
    tally.add('miss', 3);
    assert.deepEqual(await series(registry), { ready: 2, miss: 3 });
    assert.deepEqual(await series(registry), { ready: 2, miss: 3 }, 'a scrape with nothing new adds nothing');
    tally.add('miss');
    assert.deepEqual(await series(registry), { ready: 2, miss: 4 });
    assert.match(await registry.metrics(), /# TYPE spec_total counter\nspec_total\{outcome="ready"\} 2\nspec_total\{outcome="miss"\} 4/);
  });

  it('is bounded: past its limit of label values the rest are counted under other', async () => {
    const registry = new Registry();
    const tally = new LabelTally({ name: 'spec_bounded_total', help: 'spec', label: 'reason', registers: [registry] }, 2);
    for (const r of ['a', 'b', 'c', 'd', 'c']) tally.add(r);
    assert.deepEqual(await series(registry), { a: 1, b: 1, other: 3 });
  });
});
