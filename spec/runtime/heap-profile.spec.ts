import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANAGER_ENV, MANAGER_NODE_FLAGS, MANAGER_V8_FLAGS, YOUNG_SEMI_SPACE_MIB } from '../../engine/runtime/server/index.js';
import { REPO, startManager, tempDir } from './support.js';

const MiB = 1024 * 1024;

/** A child allocating request-sized garbage for a while reports how large its young generation became, and what youngGeneration() says of it. */
const script = (apply: boolean) => `
  const { applyManagerHeapProfile, youngGeneration } = await import(${JSON.stringify(join(REPO, 'engine/runtime/server/heap-profile.ts'))});
  ${apply ? 'applyManagerHeapProfile();' : ''}
  let keep = [];
  for (let i = 0; i < 400000; i++) {
    keep.push({ ticket: i, keys: Array.from({ length: 16 }, (_, j) => 'k' + j + ':' + i), record: { at: new Date().toISOString() } });
    if (keep.length > 2000) keep = [];
  }
  process.stdout.write(JSON.stringify(youngGeneration()));
`;

const run = (apply: boolean, nodeFlags: readonly string[] = []) => {
  const r = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script(apply)], { cwd: REPO, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { newSpaceBytes: number; configured: boolean };
};

describe('runtime/server/heap-profile: the Manager\'s young generation', function () {
  this.timeout(120_000);

  it('under allocation pressure the profile holds the new space to one step past its start (V8 alone doubles it to 32 MiB); the node flags start it at YOUNG_SEMI_SPACE_MIB (4 MiB)', () => {
    const alone = run(false);
    const profiled = run(true);
    const flagged = run(true, MANAGER_NODE_FLAGS);
    assert.ok(profiled.newSpaceBytes <= 16 * MiB, `new space ${profiled.newSpaceBytes} bytes with the profile`);
    assert.ok(alone.newSpaceBytes > profiled.newSpaceBytes, `new space ${alone.newSpaceBytes} bytes without the profile vs ${profiled.newSpaceBytes} with it`);
    assert.ok(flagged.newSpaceBytes >= YOUNG_SEMI_SPACE_MIB * MiB && flagged.newSpaceBytes <= 2 * YOUNG_SEMI_SPACE_MIB * MiB, `new space ${flagged.newSpaceBytes} bytes with the flags`);
    assert.deepEqual([alone.configured, profiled.configured, flagged.configured], [false, false, true]);
  });

  it('sets each run-time flag unless node\'s command line gave that flag (the operator\'s value wins)', () => {
    const applied = (nodeFlags: string[]) => {
      const r = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', `const { applyManagerHeapProfile } = await import(${JSON.stringify(join(REPO, 'engine/runtime/server/heap-profile.ts'))}); process.stdout.write(JSON.stringify([applyManagerHeapProfile(), applyManagerHeapProfile()]))`], { cwd: REPO, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout) as [string[], string[]];
    };
    assert.deepEqual(applied([]), [[...MANAGER_V8_FLAGS], []]);
    assert.deepEqual(applied(['--heap-growing-percent=0']), [['--semi-space-growth-factor=1'], []]);
    assert.deepEqual(applied(['--heap_growing_percent=25', '--semi-space-growth-factor=2']), [[], []]);
  });

  it("counts node's flags as given by name: an operator's own semi-space (8 MiB for --ticket-actors main) is configured, a missing flag is not", async () => {
    const { youngGeneration } = await import('../../engine/runtime/server/heap-profile.js');
    assert.equal(youngGeneration([...MANAGER_NODE_FLAGS]).configured, true);
    assert.equal(youngGeneration(['--min-semi-space-size=8', '--max_semi_space_size=8', '--no-allocation-site-pretenuring']).configured, true);
    assert.equal(youngGeneration(['--min-semi-space-size=8', '--no-allocation-site-pretenuring']).configured, false);
    assert.equal(youngGeneration([]).configured, false);
  });

  it('the orbitkv command starts node with MANAGER_ENV and MANAGER_NODE_FLAGS (its first line), so `orbitkv serve` gets them', () => {
    const first = readFileSync(join(REPO, 'bin', 'orbitkv.js'), 'utf8').split('\n')[0]!;
    const env = Object.entries(MANAGER_ENV).map(([k, v]) => `${k}=${v}`);
    assert.deepEqual(env, ['MALLOC_ARENA_MAX=2']);
    assert.equal(first, `#!/usr/bin/env -S ${env.join(' ')} node ${MANAGER_NODE_FLAGS.join(' ')}`);
    // And env -S splits them as the kernel hands them over: the bin runs and answers.
    const r = spawnSync(join(REPO, 'bin', 'orbitkv.js'), ['--help'], { cwd: REPO, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('a Manager logs its young generation when it serves, and warns (heap-flags-missing, manager-env-missing) when node was started without the flags and the environment', async () => {
    const dir = tempDir('young');
    const flagged = await startManager(['--dram', '32m', '--block-size', '64k'], { socketDir: join(dir, 'a') });
    const bare = await startManager(['--dram', '1m', '--block-size', '64k'], { socketDir: join(dir, 'b'), nodeFlags: [] });
    try {
      const serving = (m: typeof flagged) => m.logs.find((e) => e.event === 'serving')!;
      assert.ok(Number(serving(flagged).youngGenerationBytes) >= YOUNG_SEMI_SPACE_MIB * MiB);
      assert.deepEqual([serving(flagged).youngGenerationConfigured, serving(bare).youngGenerationConfigured], [true, false]);
      assert.equal(flagged.logs.some((e) => e.event === 'heap-flags-missing'), false);
      const warned = bare.logs.find((e) => e.event === 'heap-flags-missing');
      assert.ok(warned, bare.stderr());
      assert.ok(String(warned.fix).includes(MANAGER_NODE_FLAGS.join(' ')), String(warned.fix));
      // The DRAM arena is not counted by V8 as external memory (see DramArena.untrackFromV8).
      // What else V8 counts there is a few MB of the process's own: counted, the arena would add 32 MiB to it.
      assert.ok(Number(serving(flagged).v8ExternalBytes) < 16 * MiB, `v8ExternalBytes ${serving(flagged).v8ExternalBytes} with a 32 MiB arena`);
      // The environment the C library reads as the process starts: logged, and its absence warned.
      assert.equal(serving(flagged).mallocArenaMax, '2');
      assert.equal(flagged.logs.some((e) => e.event === 'manager-env-missing'), false);
      assert.equal(serving(bare).mallocArenaMax, process.env['MALLOC_ARENA_MAX'] ?? null);
      if (process.env['MALLOC_ARENA_MAX'] === undefined) assert.deepEqual(bare.logs.find((e) => e.event === 'manager-env-missing')?.unset, ['MALLOC_ARENA_MAX'], bare.stderr());
    } finally {
      assert.equal(await flagged.stop(), 0);
      assert.equal(await bare.stop(), 0);
    }
  });
});
