import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSchemas } from '../../generators/schema/generate.js';
import { schemaDrift } from '../../engine/cli/commands/schema.js';
import { CONTRACT_KINDS } from '../../engine/model/index.js';

describe('generators/schema', () => {
  const files = generateSchemas();

  it('the committed contracts/schema is fresh (run `npm run schema` after changing engine/model)', () => {
    assert.deepEqual(schemaDrift('contracts/schema', files), []);
  });

  it('emits one strict schema per kind: required fields, no additional properties', () => {
    for (const kind of CONTRACT_KINDS) {
      const f = files.find((x) => x.name === `${kind}.json`);
      assert.ok(f, `${kind}.json generated`);
      const schema = JSON.parse(f.text);
      assert.equal(schema.additionalProperties, false, kind);
      assert.ok(schema.required.includes('kind') && schema.required.includes('id'), kind);
      assert.equal(schema.properties.kind.const, kind);
      assert.ok(schema.properties.id.description, `${kind}.id carries JSDoc`);
    }
  });

  it('drift detection names a hand-edited and a stale file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'schema-'));
    for (const f of files) writeFileSync(join(dir, f.name), f.text);
    assert.deepEqual(schemaDrift(dir, files), []);
    writeFileSync(join(dir, 'hook.json'), readFileSync(join(dir, 'hook.json'), 'utf8').replace('"kind"', '"kinds"'));
    writeFileSync(join(dir, 'old.json'), '{}');
    const drift = schemaDrift(dir, files);
    assert.equal(drift.length, 2);
    assert.match(drift[0]!, /hook\.json: differs/);
    assert.match(drift[1]!, /old\.json: not generated/);
  });
});
