/** The finalizer backstop for native objects: unreferenced ones are released once, explicit release wins. */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runFixture } from './fixtures/scratch.js';

describe('native finalizers', function () {
  this.timeout(30_000);

  it('releases unreferenced objects when collected, and each release runs once', async () => {
    const r = await runFixture(fileURLToPath(new URL('./fixtures/finalizers-gc.ts', import.meta.url)), [], '', ['--expose-gc']);
    assert.equal(r.code, 0, r.stderr);
    const { released, live } = JSON.parse(r.stdout) as { released: string[]; live: number };
    assert.deepEqual([...released].sort(), ['buffer', 'dropped', 'explicit', 'kept']);
    assert.equal(released.indexOf('explicit'), 0, 'the explicit release ran first, and only once');
    assert.equal(released.at(-1), 'kept', 'a referenced object is not released by the collector');
    assert.equal(live, 0);
  });
});
