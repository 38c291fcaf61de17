import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../../engine/diagnostics/index.js';
import { REGISTRY_DIAGNOSTICS } from '../../engine/diagnostics/bands/registry.js';
import { LEDGER_DIAGNOSTICS } from '../../engine/diagnostics/bands/ledger.js';
import { GENERATE_DIAGNOSTICS } from '../../engine/diagnostics/bands/generate.js';
import { VERIFY_DIAGNOSTICS } from '../../engine/diagnostics/bands/verify.js';
import { RUNTIME_DIAGNOSTICS } from '../../engine/diagnostics/bands/runtime.js';

const SPEC = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each band file and the thousands its codes must be in. */
const BANDS: Array<{ name: string; entries: Record<string, { code: string }>; thousands: number[] }> = [
  { name: 'registry', entries: REGISTRY_DIAGNOSTICS, thousands: [1, 2, 3] },
  { name: 'ledger', entries: LEDGER_DIAGNOSTICS, thousands: [4] },
  { name: 'generate', entries: GENERATE_DIAGNOSTICS, thousands: [5] },
  { name: 'verify', entries: VERIFY_DIAGNOSTICS, thousands: [6] },
  { name: 'runtime', entries: RUNTIME_DIAGNOSTICS, thousands: [7] },
];

function specSources(dir: string): string {
  let text = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'fixtures') continue;
    if (statSync(path).isDirectory()) text += specSources(path);
    else if (name.endsWith('.ts')) text += readFileSync(path, 'utf8');
  }
  return text;
}

describe('diagnostics/catalogue (meta)', () => {
  it('codes are OKV + 4 digits and unique across all bands', () => {
    const all = BANDS.flatMap((b) => Object.values(b.entries).map((d) => d.code));
    for (const code of all) assert.match(code, /^OKV\d{4}$/);
    const dupes = all.filter((c, i) => all.indexOf(c) !== i);
    assert.deepEqual(dupes, []);
    assert.equal(Object.keys(CATALOGUE).length, all.length, 'a key is reused across bands');
  });

  it('every code is in its band', () => {
    for (const band of BANDS) {
      for (const [key, d] of Object.entries(band.entries)) {
        assert.ok(band.thousands.includes(Number(d.code[3])), `${band.name}.${key} has ${d.code}`);
      }
    }
  });

  it('every rule name is kebab-case and every entry has a message', () => {
    for (const [key, d] of Object.entries(CATALOGUE)) {
      assert.match(d.rule, /^[a-z0-9]+(-[a-z0-9]+)*$/, key);
      assert.equal(typeof d.message, 'function', key);
    }
  });

  it('every live registry-band code is triggered by a spec', () => {
    const sources = specSources(SPEC);
    const missing = Object.entries(REGISTRY_DIAGNOSTICS)
      .filter(([, d]) => !('retired' in d && d.retired))
      .map(([, d]) => d.code)
      .filter((code) => !sources.includes(`'${code}'`));
    assert.deepEqual(missing, []);
  });
});

describe('diagnostics/catalogue: registry band hints', () => {
  it('every live registry-band diagnostic says how to fix it', () => {
    const without = Object.entries(REGISTRY_DIAGNOSTICS).filter(([, d]) => !('hint' in d) || typeof d.hint !== 'function').map(([key]) => key);
    assert.deepEqual(without, []);
  });
});
