import { strict as assert } from 'node:assert';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { scanFiles, workerCount } from '../../engine/verify/index.js';
import { DEFAULT_MAX_FILE_BYTES } from '../../engine/verify/scan-file.js';
import { readSourceTree } from '../../engine/verify/source-tree.js';
import { ENGINE_FIXTURES } from './checkout.js';

describe('verify: the scan pool', function () {
  const tree = readSourceTree(join(ENGINE_FIXTURES, 'vllm-0.31.0'), 'vllm', [])!;
  const options = { maxFileBytes: DEFAULT_MAX_FILE_BYTES, needles: ['VLLM_PLUGINS'], bodies: ['execute_model', 'pre_forward'] };

  it('worker threads return the same symbol tables as the calling thread, in input order', async function () {
    const files = [...tree.files, ...tree.files, ...tree.files];
    const alone = await scanFiles(files, options, 0);
    const pooled = await scanFiles(files, options, 2);
    assert.equal(pooled.length, files.length);
    assert.deepEqual(pooled, alone);
    assert.deepEqual(pooled.map((s) => s.file), files.map((f) => f.file));
    // the calling thread may finish a small tree before a worker starts: here only workers scan
    const workersOnly = await scanFiles(files, options, 2, false);
    assert.deepEqual(workersOnly, alone);
    const runner = pooled.find((s) => s.file === 'vllm/v1/worker/gpu/model_runner.py')!;
    const execute = runner.definitions.find((d) => d.qualname === 'GPUModelRunner.execute_model');
    assert.ok(execute?.kind === 'function' && execute.calls.length > 0, 'bodies of scoped functions are read');
    assert.ok(execute?.kind === 'function' && execute.bodyRead && execute.calls.every((c) => Array.isArray(c.guards)), 'calls carry their guards');
    // helpers' bodies are read on demand, when an assertion follows a call into them
    const update = runner.definitions.find((d) => d.qualname === 'GPUModelRunner.update_requests');
    assert.ok(update?.kind === 'function' && !update.bodyRead && update.calls.length === 0, 'other bodies are not');
  });

  it('sizes the pool to the CPUs, counting the calling thread, and skips workers for small trees', function () {
    assert.equal(workerCount(10), 0);
    assert.equal(workerCount(100_000), availableParallelism() - 1);
    assert.equal(workerCount(100_000, 0), 0);
    assert.equal(workerCount(5, 3), 3);
  });
});
