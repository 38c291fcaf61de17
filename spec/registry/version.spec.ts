/** One PEP 440 comparison everywhere: the registry's, re-exported by the lifecycle machines, against shared vectors. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compareVersions, lineOf } from '../../engine/registry/index.js';
import * as machines from '../../engine/lifecycle/machines/index.js';
import { parseVersion } from '../../engine/registry/version.js';

export const VERSION_VECTORS = JSON.parse(readFileSync(new URL('../vectors/versions/order.json', import.meta.url), 'utf8')) as {
  ascending: string[];
  equal: [string, string][];
  lines: [string, string][];
  invalid: string[];
};

describe('registry/version (PEP 440)', () => {
  const { ascending, equal, lines, invalid } = VERSION_VECTORS;

  it('orders every pair of the ascending vector (pre, post, dev, local, epoch)', () => {
    for (let i = 0; i < ascending.length; i++) {
      for (let j = 0; j < ascending.length; j++) {
        const c = Math.sign(compareVersions(ascending[i]!, ascending[j]!));
        assert.equal(c, Math.sign(i - j), `${ascending[i]} vs ${ascending[j]}`);
      }
    }
  });

  it('treats alternative spellings as the same version', () => {
    for (const [a, b] of equal) assert.equal(compareVersions(a, b), 0, `${a} = ${b}`);
  });

  it('puts a version on its major.minor line', () => {
    for (const [v, line] of lines) assert.equal(lineOf(v), line, v);
  });

  it('parses no invalid version, and sorts such strings before every version', () => {
    for (const s of invalid) {
      assert.equal(parseVersion(s), undefined, s);
      assert.ok(compareVersions(s, '0.0.1') < 0, s);
    }
  });

  it('is the comparison the lifecycle machines use (one implementation)', () => {
    assert.equal(machines.compareVersions, compareVersions);
    assert.equal(machines.lineOf, lineOf);
  });
});
