import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './support.js';

/** A child allocating request-sized garbage for a while reports how large its young generation became. */
const script = (apply: boolean) => `
  import { getHeapSpaceStatistics } from 'node:v8';
  ${apply ? `const { applyManagerHeapProfile } = await import(${JSON.stringify(join(REPO, 'engine/runtime/server/index.ts'))}); applyManagerHeapProfile();` : ''}
  let keep = [];
  for (let i = 0; i < 400000; i++) {
    keep.push({ ticket: i, keys: Array.from({ length: 16 }, (_, j) => 'k' + j + ':' + i), record: { at: new Date().toISOString() } });
    if (keep.length > 2000) keep = [];
  }
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  process.stdout.write(String(space.space_size));
`;

describe('runtime/server/heap-profile: the Manager keeps its young generation from growing', function () {
  this.timeout(120_000);

  it('under allocation pressure the new space stays at its start size with the profile, and grows without it', () => {
    const run = (apply: boolean) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(apply)], { cwd: REPO, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return Number(r.stdout);
    };
    const without = run(false);
    const profiled = run(true);
    assert.ok(profiled <= 2 * 1024 * 1024, `new space ${profiled} bytes with the profile`);
    assert.ok(without > 2 * profiled, `new space ${without} bytes without the profile vs ${profiled} with it`);
  });
});
