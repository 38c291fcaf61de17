import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO, generatedOnce, unittest } from './support.js';

describe('generators/adapters: the generated Python against stand-in engines', function () {
  this.timeout(120_000);

  it('the SGLang hook installer: BEFORE and AROUND applied; missing, changed, already patched and dropped hooks are named rejections', () => {
    const log = unittest('test_hooks.py', {
      ORBITKV_FIXTURES: join(REPO, 'spec', 'fixtures', 'sglang-hooks'),
      ORBITKV_PACKAGE_ROOTS: join(generatedOnce(), 'orbitkv-sglang'),
    });
    for (const name of ['installs_every_always_hook', 'missing_target', 'changed_signature', 'already_patched', 'silently_dropped', 'selected_hook_failure_stops'])
      assert.match(log, new RegExp(`test_${name}\\w* .*\\.\\.\\. ok`));
  });

  it('the vLLM connector: rejections in the constructor before any connection, then the Manager', () => {
    const log = unittest('test_connector.py', { ORBITKV_PACKAGE_ROOTS: join(generatedOnce(), 'orbitkv-vllm') });
    assert.match(log, /test_rejections_run_before_any_connection .*\.\.\. ok/);
    assert.match(log, /Ran \d+ tests/);
  });
});
