import assert from 'node:assert/strict';
import { globToRegExp } from '../../generators/wheel/index.js';

describe('generators/wheel: retired-path globs', () => {
  const cases: [string, string, boolean][] = [
    ['**/pd/**', 'orbitkv_vllm/pd/connector.py', true],
    ['**/pd/**', 'pd/x.py', true],
    ['**/pd/**', 'orbitkv_vllm/pdx/connector.py', false],
    ['**/*tent*', 'orbitkv_vllm/attention.py', true],
    ['**/*tent*', 'tent_adapter.py', true],
    ['**/*nixl*', 'orbitkv_vllm/sub/my_nixl.py', true],
    ['tests/**', 'tests/test_a.py', true],
    ['tests/**', 'orbitkv_vllm/tests/test_a.py', false],
    ['**/tests/**', 'orbitkv_vllm/tests/test_a.py', true],
    ['*.py', 'a/b.py', false],
    ['a?c.py', 'abc.py', true],
    ['a?c.py', 'a/c.py', false],
    ['**/x.(py)', 'x.(py)', true],
  ];
  for (const [pattern, path, matches] of cases)
    it(`${pattern} ${matches ? 'matches' : 'does not match'} ${path}`, () => assert.equal(globToRegExp(pattern).test(path), matches));
});
