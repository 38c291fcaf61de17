import { strict as assert } from 'node:assert';
import { jsonNestingDepth } from '../../engine/json/index.js';

describe('json: nesting depth read from the text', function () {
  it('counts arrays and objects, not brackets inside strings or after escaped quotes', function () {
    assert.equal(jsonNestingDepth('1'), 0);
    assert.equal(jsonNestingDepth('{"a":[1,{"b":[]}]}'), 4);
    assert.equal(jsonNestingDepth('{"a":"[[[{{{"}'), 1);
    assert.equal(jsonNestingDepth('["\\"[[[", []]'), 2);
    assert.equal(jsonNestingDepth('[[]][[[]]]'), 3, 'the deepest point, not the last');
  });

  it('stops as soon as the depth passes the bound (a 30,000-deep bomb is read only up to it)', function () {
    const bomb = '['.repeat(30_000);
    assert.equal(jsonNestingDepth(bomb, 64), 65);
    assert.equal(jsonNestingDepth(bomb), 30_000);
  });
});
