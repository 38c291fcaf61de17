/**
 * The SGLang template's hook roles: every hook a generated package installs has a body that does
 * its role's work over the Manager client (no generic body, no call the client does not have),
 * and a hook whose target and type have no role is refused at generation, at the contract.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateAdapters, planAdapters } from '../../generators/index.js';
import { REPO, python, registryAt, registryWithAbortHook, registryWithHook, tempDir } from './support.js';

const TESSERA = join(REPO, 'spec', 'fixtures', 'tessera');

function pythonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? pythonFiles(join(dir, e.name)) : e.name.endsWith('.py') ? [join(dir, e.name)] : []));
}

describe('generators/adapters/sglang: every installed hook has a role and a body over the client', function () {
  this.timeout(120_000);
  const registries: [string, () => string][] = [
    ['embedded', () => join(REPO, 'contracts')],
    ['second product (tessera)', () => TESSERA],
    ['embedded with the abort hook kept', registryWithAbortHook],
  ];

  for (const [name, dir] of registries) {
    it(`${name}: generates, every installed SGLang hook has a role, and no generated module calls .call( on the client`, () => {
      const registry = registryAt(dir());
      const out = tempDir('hook-roles');
      const result = generateAdapters(registry, { outDir: out, wheel: false });
      assert.deepEqual(result.diagnostics.filter((d) => d.severity === 'error'), []);
      const sglang = planAdapters(registry, '0').packages.find((p) => p.engine.name === 'sglang')!;
      const hooks = (sglang.data.template as { hooks: { id: string; role: string | null }[] }).hooks;
      assert.ok(hooks.length > 0);
      for (const hook of hooks) assert.ok(hook.role, `${hook.id} has no role`);
      const files = pythonFiles(out);
      assert.ok(files.some((f) => f.endsWith(join('_client.py'))));
      const client = readFileSync(files.find((f) => f.includes('sglang') && f.endsWith('_client.py'))!, 'utf8');
      assert.doesNotMatch(client, /^\s+def call\(/m, 'the client has no generic call');
      for (const file of files) {
        const text = readFileSync(file, 'utf8');
        assert.doesNotMatch(text, /\.call\(/, `${file} calls .call( on the client`);
      }
    });
  }

  it('the abort hook installs the drain role, and hooks.py carries its body', () => {
    const registry = registryAt(registryWithAbortHook());
    const sglang = planAdapters(registry, '0').packages.find((p) => p.engine.name === 'sglang')!;
    const hook = (sglang.data.template as { hooks: { id: string; target: string; role: string | null }[] }).hooks.find((h) => h.target.endsWith('Scheduler._release_aborted_request'));
    assert.equal(hook?.role, 'drain-before-release');
    assert.match(sglang.modules['hooks.py']!, /live\.drain\(args\[1\]\)/);
  });

  it('a kept hook on a target without a role is refused at generation (OKV5316) at its target, and nothing is written', () => {
    const from = 'target: sglang.srt.managers.scheduler.Scheduler._add_request_to_queue';
    const original = readFileSync(join(REPO, 'contracts', 'hooks', 'hook.sglang.add-request-to-queue.yaml'), 'utf8');
    const tail = original.slice(original.indexOf(from)).replace(from, 'target: sglang.srt.managers.scheduler.Scheduler.process_input_requests');
    const dir = registryWithHook('hook.sglang.add-request-to-queue.yaml', from, tail);
    const edited = readFileSync(join(dir, 'hooks', 'hook.sglang.add-request-to-queue.yaml'), 'utf8');
    const line = edited.split('\n').findIndex((l) => l.startsWith('target: ')) + 1;
    const plan = planAdapters(registryAt(dir), '0');
    const found = plan.diagnostics.filter((d) => d.code === 'OKV5316');
    assert.deepEqual(found.map((d) => [d.contract, d.file, d.range?.line, d.range?.col]), [['hook.sglang.add-request-to-queue', 'hooks/hook.sglang.add-request-to-queue.yaml', line, 1]]);
    assert.deepEqual(plan.skipped.filter((s) => s.engine === 'sglang'), [{ engine: 'sglang', code: 'OKV5316' }]);
    assert.ok(!plan.packages.some((p) => p.engine.name === 'sglang'));
  });

  it('the recovery linker wrapper passes every attribute to the linker, and its abort and preemption drain the request', () => {
    const out = tempDir('hook-roles-wrapper');
    assert.deepEqual(generateAdapters(registryAt(join(REPO, 'contracts')), { outDir: out, wheel: false }).diagnostics.filter((d) => d.severity === 'error'), []);
    const code = [
      'import json',
      'from orbitkv_sglang.linker import RecoveryLinkerWrapper',
      'class Linker:',
      '    def __init__(self): self.calls = []',
      '    def drain(self, rid): self.calls.append(["drain", rid])',
      '    def lookup(self, rid, transfers): self.calls.append(["lookup", rid]); return [1, 2]',
      'inner = Linker(); wrapper = RecoveryLinkerWrapper(inner)',
      'found = wrapper.lookup("r", [])',
      'wrapper.abort("a"); wrapper.preempt("p")',
      'print(json.dumps({"found": found, "calls": inner.calls}))',
    ].join('\n');
    const r = python(['-c', code], { env: { PYTHONPATH: join(out, 'orbitkv-sglang') } });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { found: [1, 2], calls: [['lookup', 'r'], ['drain', 'a'], ['drain', 'p']] });
  });
});
