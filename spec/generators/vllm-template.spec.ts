import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planAdapters } from '../../generators/index.js';
import { IMPLEMENTED_METHODS } from '../../generators/adapters/vllm/python/index.js';
import { REPO, registryAt, tempDir } from './support.js';

const TESSERA = join(REPO, 'spec', 'fixtures', 'tessera');
const IFACE = join('interfaces', 'interface.vllm.kv-connector.yaml');
const BASE = 'vllm.distributed.kv_transfer.kv_connector.v1.base.KVConnectorBase_V1';

/** The tessera registry with one more consumed KVConnectorBase_V1 method (after start_load_kv). */
function consuming(method: string): string {
  const dir = join(tempDir('vllm-template'), 'registry');
  cpSync(TESSERA, dir, { recursive: true });
  const path = join(dir, IFACE);
  const anchor = `  - target: ${BASE}.start_load_kv\n    kind: method\n    role: Worker side, delegated to the Tessera Manager.\n`;
  const text = readFileSync(path, 'utf8');
  assert.ok(text.includes(anchor));
  writeFileSync(path, text.replace(anchor, `${anchor}  - target: ${BASE}.${method}\n    kind: method\n    role: Consumed for the spec.\n`));
  return dir;
}

describe('generators/adapters/vllm: the connector template implements what the contracts consume', () => {
  it('a consumed connector method the template does not implement is OKV5306 at that symbol', () => {
    const dir = consuming('get_kv_connector_stats');
    const found = planAdapters(registryAt(dir), '0').diagnostics.filter((d) => d.code === 'OKV5306');
    assert.equal(found.length, 1);
    const line = readFileSync(join(dir, IFACE), 'utf8').split('\n').findIndex((l) => l.endsWith(`${BASE}.get_kv_connector_stats`)) + 1;
    assert.deepEqual([found[0]!.contract, found[0]!.file, found[0]!.range?.line, found[0]!.severity], ['interface.vllm.kv-connector', IFACE, line, 'error']);
  });

  it('a consumed method it implements is planned into the connector data, with no finding', () => {
    const plan = planAdapters(registryAt(consuming('wait_for_save')), '0');
    assert.deepEqual(plan.diagnostics.filter((d) => d.code.startsWith('OKV53')), []);
    const vllm = plan.packages.find((p) => p.engine.name === 'vllm')!;
    const methods = (vllm.data.template as { connectors: { methods: string[] }[] }).connectors[0]!.methods;
    assert.ok(methods.includes('wait_for_save'));
    assert.ok(methods.every((m) => IMPLEMENTED_METHODS.includes(m)));
    assert.ok(['scheduler_half.py', 'worker_half.py', 'kv_layout.py', 'connector.py'].every((m) => m in vllm.modules));
  });
});
