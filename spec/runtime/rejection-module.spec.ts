import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REJECTION_MODULE_FILE, rejectionModuleSource, rejectionTable } from '../../generators/rejections/index.js';
import { loadRegistry } from '../../engine/registry/index.js';
import { loadRejectionChecks, rejectionModuleFor } from '../../engine/runtime/handshake/index.js';
import { REPO, acceptedProfile } from './support.js';

const embedded = () => loadRegistry(join(REPO, 'contracts')).registry;
const operator = () => loadRegistry(join(REPO, 'spec', 'vectors', 'operators', 'registry')).registry;

describe('runtime/handshake: the rejection module the Manager loads without a compiler', function () {
  this.timeout(60_000);

  it('the committed module is what the emitter gives now (regenerate: npx tsx generators/rejections/write-module.ts)', () => {
    assert.equal(readFileSync(join(REPO, REJECTION_MODULE_FILE), 'utf8'), rejectionModuleSource());
  });

  for (const [title, registry] of [['embedded registry', embedded], ['operator registry (a second product)', operator]] as const) {
    it(`${title}: the loaded module carries exactly that registry's table`, async () => {
      const r = registry();
      const table = rejectionTable(r);
      const m = (await loadRejectionChecks(r)) as unknown as Record<string, unknown>;
      assert.deepEqual({ PRODUCT: m.PRODUCT, PINS: m.PINS, REJECTIONS: m.REJECTIONS, PROFILES: m.PROFILES }, { PRODUCT: table.product.name, PINS: table.pins, REJECTIONS: table.rejections, PROFILES: table.profiles });
      assert.ok(!rejectionModuleFor(r).includes('__ORBITKV_GENERATED_'));
    });
  }

  it("each registry's own rules decide: a profile one accepts, the other refuses", async () => {
    const [mine, theirs] = await Promise.all([loadRejectionChecks(embedded()), loadRejectionChecks(operator())]);
    const vllm = acceptedProfile();
    assert.equal(mine.evaluate(vllm).accepted, true);
    assert.equal(theirs.evaluate(vllm).accepted, false);
    assert.equal(theirs.evaluate(vllm).pin, null);
    const demo = (JSON.parse(readFileSync(join(REPO, 'spec', 'vectors', 'operators', 'cases.json'), 'utf8')) as { cases: { profile: { engine: string }; expected: { rejections: string[] } }[] }).cases[0]!;
    assert.deepEqual(theirs.evaluate(demo.profile).rejections.map((x) => x.id), demo.expected.rejections);
    assert.equal(mine.evaluate(demo.profile).pin, null);
    assert.deepEqual(mine.evaluate(demo.profile).rejections, []);
  });

  it('serving loads no compiler: building the checks leaves ts-morph and typescript unloaded', () => {
    const script = `
      import { createRequire } from 'node:module';
      const { loadRegistry } = await import(${JSON.stringify(join(REPO, 'engine/registry/index.ts'))});
      const { startManager } = await import(${JSON.stringify(join(REPO, 'engine/runtime/index.ts'))});
      const { loadRejectionChecks } = await import(${JSON.stringify(join(REPO, 'engine/runtime/handshake/index.ts'))});
      const checks = await loadRejectionChecks(loadRegistry(${JSON.stringify(join(REPO, 'contracts'))}).registry);
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules\\/(ts-morph|@ts-morph|typescript)\\//.test(f));
      process.stdout.write(JSON.stringify({ loaded, evaluate: typeof checks.evaluate, startManager: typeof startManager }));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { loaded: [], evaluate: 'function', startManager: 'function' });
  });
});
