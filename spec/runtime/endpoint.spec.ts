import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSocketPath, managerEndpoint } from '../../engine/runtime/index.js';
import { productOf } from '../../engine/registry/index.js';
import { generateAdapters } from '../../generators/index.js';
import { registryAt } from '../generators/support.js';
import { REPO, startManager, tempDir } from './support.js';

const TESSERA = join(REPO, 'spec', 'fixtures', 'tessera');

/** The Python client's rule, run in the generated package of a registry. */
function pythonSocketPath(root: string, pkg: string, env: Record<string, string>): string {
  const script = `import sys; sys.path.insert(0, sys.argv[1]); import importlib; c = importlib.import_module(sys.argv[2] + "._client"); print(c.default_socket_path())`;
  const r = spawnSync('python3', ['-I', '-c', script, root, pkg], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

describe('runtime/endpoint: one socket rule for serve, the CLI and the generated client (a second product)', function () {
  this.timeout(120_000);
  const registry = registryAt(TESSERA);
  const endpoint = managerEndpoint(productOf(registry));
  let out = '';
  before(() => {
    out = tempDir('tessera-endpoint');
    const result = generateAdapters(registry, { outDir: out, wheel: false });
    assert.ok(!result.diagnostics.some((d) => d.severity === 'error'));
  });

  it('names the product\'s own variable, folder and serve command', () => {
    assert.deepEqual(endpoint, { product: 'Tessera', socketEnv: 'TSR_MANAGER_SOCKET', folder: 'tessera', serve: 'tessera serve' });
  });

  for (const [name, env] of [
    ['the override variable', { TSR_MANAGER_SOCKET: '/run/elsewhere/m.sock', XDG_RUNTIME_DIR: '/run/user/7' }],
    ['XDG_RUNTIME_DIR', { XDG_RUNTIME_DIR: '/run/user/7' }],
    ['neither (the /tmp folder)', {}],
    ['another product\'s variable (ignored)', { ORBITKV_MANAGER_SOCKET: '/wrong.sock' }],
  ] as const) {
    it(`TypeScript and both generated Python clients agree with ${name}`, () => {
      const ts = defaultSocketPath(env, endpoint);
      for (const [dir, pkg] of [['tessera-vllm', 'tessera_vllm'], ['tessera-sglang', 'tessera_sglang']]) assert.equal(pythonSocketPath(join(out, dir!), pkg!, env), ts, pkg);
      if (!('TSR_MANAGER_SOCKET' in env)) assert.ok(ts.includes('/tessera'), ts);
    });
  }

  it('serve with that registry and no --socket listens where the client looks', async () => {
    const runtime = tempDir('xdg');
    const m = await startManager(['--registry', TESSERA, '--dram', '256k', '--block-size', '64k'], { env: { XDG_RUNTIME_DIR: runtime, TSR_MANAGER_SOCKET: '' }, noSocket: true });
    try {
      const expected = pythonSocketPath(join(out, 'tessera-vllm'), 'tessera_vllm', { XDG_RUNTIME_DIR: runtime });
      assert.equal(expected, join(runtime, 'tessera', 'manager.sock'));
      assert.ok(m.logs.some((l) => l.event === 'serving' && l.socket === expected), JSON.stringify(m.logs));
      assert.ok(existsSync(expected));
    } finally {
      await m.stop();
    }
  });
});
