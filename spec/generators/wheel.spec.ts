import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import type { LazyImportRule } from '../../engine/model/index.js';
import { type ZipMember, checkWheel, planAdapters, readZip, recordHash, wheelRules, writeZip } from '../../generators/index.js';
import { captureIo } from '../support/io.js';
import { REPO, embeddedRegistry, generatedOnce, python, tempDir, venvOnce } from './support.js';

const wheelsDir = () => join(generatedOnce(), 'wheels');
const wheelFiles = () => readdirSync(wheelsDir()).sort().map((f) => join(wheelsDir(), f));

/** A copy of a wheel with its members changed and, unless `keepRecord`, a RECORD that matches them. */
function seeded(wheel: string, change: (members: ZipMember[]) => ZipMember[], keepRecord = false): Buffer {
  let members = change(readZip(readFileSync(wheel)));
  if (!keepRecord) {
    const record = members.find((m) => m.name.endsWith('.dist-info/RECORD'))!;
    members = members.filter((m) => m !== record);
    const lines = members.map((m) => `${m.name},${recordHash(m.bytes)},${m.bytes.length}`).concat(`${record.name},,`, '');
    members.push({ name: record.name, bytes: Buffer.from(lines.join('\n')) });
  }
  return writeZip(members);
}

const codes = (bytes: Buffer) => [...new Set(checkWheel(embeddedRegistry(), bytes, 'seeded.whl').map((d) => d.code))].sort();

describe('generators/wheel: installable wheels and the packaging gate', function () {
  this.timeout(180_000);

  before(() => {
    venvOnce();
  });

  it('installs both wheels with pip --no-index; importing and calling the entry points (OrbitKV not selected) loads no torch, no native module and opens no socket', () => {
    const lazy = embeddedRegistry().ofKind('policy').find((p) => p.policy.rule === 'lazy-import')!.policy as LazyImportRule;
    const packages = planAdapters(embeddedRegistry(), '0').packages;
    const script = `
import importlib, json, socket, sys, sysconfig
from importlib.metadata import entry_points
sockets = []
real = socket.socket.__init__
def spy(self, *args, **kwargs):
    sockets.append(repr(args))
    return real(self, *args, **kwargs)
socket.socket.__init__ = spy
before = set(sys.modules)
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
results = {}
for group in json.loads(sys.argv[2]):
    for ep in entry_points(group=group):
        results[group + ":" + ep.name] = repr(ep.load()())
stdlib = sysconfig.get_paths()["stdlib"]
native = [n for n in set(sys.modules) - before if getattr(sys.modules[n], "__file__", None) and not sys.modules[n].__file__.endswith(".py") and not sys.modules[n].__file__.startswith(stdlib)]
print(json.dumps({"forbidden": [m for m in json.loads(sys.argv[3]) if m in sys.modules], "native": native, "sockets": sockets, "results": results}))
`;
    const r = python(['-c', script, JSON.stringify(packages.map((p) => p.importName)), JSON.stringify(packages.map((p) => p.entryPointGroup)), JSON.stringify(lazy.forbiddenModules)], { executable: venvOnce(), cwd: tempDir('lazy') });
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { forbidden: string[]; native: string[]; sockets: string[]; results: Record<string, string> };
    assert.deepEqual(report.forbidden, []);
    assert.deepEqual(report.native, []);
    assert.deepEqual(report.sockets, []);
    assert.deepEqual(Object.keys(report.results).sort(), packages.map((p) => `${p.entryPointGroup}:${p.entryPointName}`).sort());
    for (const value of Object.values(report.results)) assert.equal(value, 'None');
  });

  it('preflight from the installed package: exit 0 accepted, 3 rejected with a JSON verdict, 2 for a malformed profile', () => {
    const dir = tempDir('preflight');
    const vectors = JSON.parse(readFileSync(join(REPO, 'spec', 'vectors', 'rejections', 'vllm.v2-model-runner.json'), 'utf8')) as { cases: { profile: unknown; expected: { accepted: boolean; rejections: string[] } }[] };
    const accepted = vectors.cases.find((c) => c.expected.accepted)!;
    const rejected = vectors.cases.find((c) => c.expected.rejections.length > 0)!;
    const run = (profile: unknown) => {
      const file = join(dir, 'profile.json');
      writeFileSync(file, typeof profile === 'string' ? profile : JSON.stringify(profile));
      return python(['-m', 'orbitkv_vllm.preflight', '--profile', file], { executable: venvOnce(), cwd: dir });
    };
    const ok = run(accepted.profile);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).accepted, true);
    const no = run(rejected.profile);
    assert.equal(no.status, 3);
    const verdict = JSON.parse(no.stdout) as { accepted: boolean; rejections: { id: string; justifiedBy: string[]; message: string; gate: { contract: string; gates: string[] }[] }[] };
    assert.equal(verdict.accepted, false);
    assert.deepEqual(verdict.rejections.map((e) => e.id), rejected.expected.rejections);
    const contract = embeddedRegistry().get(rejected.expected.rejections[0]!);
    assert.ok(contract?.kind === 'rejection');
    assert.deepEqual(verdict.rejections[0]!.justifiedBy, contract.justifiedBy);
    assert.equal(verdict.rejections[0]!.message, contract.message);
    assert.ok(verdict.rejections[0]!.gate.length > 0, 'the V2 rejection names its reopening gate');
    assert.match(no.stderr, new RegExp(rejected.expected.rejections[0]!.replace(/\./g, '\\.')));
    assert.equal(run('{"engine": 1}').status, 2);
    assert.equal(run('not json').status, 2);
    assert.equal(run({ engine: 'sglang', version: '0.5.21', env: {}, config: {} }).status, 2, 'a profile for the other engine');
  });

  it('package-check passes the generated wheels', async () => {
    const io = captureIo(REPO);
    assert.equal(await runCli(['package-check', '--registry', join(REPO, 'contracts'), ...wheelFiles()], io), 0, io.stderr);
    assert.match(io.stdout, /2 wheel\(s\) pass/);
  });

  it('package-check names every retired path pattern of the policy', () => {
    const rule = wheelRules(embeddedRegistry())[0]?.rule;
    assert.ok(rule && rule.forbidden.length > 0);
    for (const wheel of wheelFiles()) {
      const pkg = readZip(readFileSync(wheel)).find((m) => m.name.endsWith('/__init__.py'))!.name.split('/')[0]!;
      for (const forbidden of rule.forbidden) {
        const path = forbidden.pattern.replace(/\*\*/g, pkg).replace(/\*/g, 'x');
        const bytes = seeded(wheel, (ms) => [...ms, { name: path, bytes: Buffer.from('retired = True\n') }]);
        const found = checkWheel(embeddedRegistry(), bytes, 'seeded.whl');
        assert.ok(found.some((d) => d.code === 'OKV5106' && d.message.includes(forbidden.pattern)), `${path} is caught by ${forbidden.pattern}`);
      }
    }
  });

  it('package-check names bytecode, loose pins, missing files, missing entry points, RECORD tampering and foreign wheels', () => {
    const wheel = wheelFiles().find((f) => f.includes('vllm'))!;
    const text = (m: ZipMember, edit: (s: string) => string): ZipMember => ({ name: m.name, bytes: Buffer.from(edit(m.bytes.toString('utf8'))) });
    assert.deepEqual(codes(readFileSync(wheel)), []);
    assert.deepEqual(codes(seeded(wheel, (ms) => [...ms, { name: 'orbitkv_vllm/__pycache__/plugin.cpython-311.pyc', bytes: Buffer.from([0x6f, 0x0d]) }])), ['OKV5107']);
    assert.deepEqual(codes(seeded(wheel, (ms) => ms.map((m) => (m.name.endsWith('/METADATA') ? text(m, (s) => s.replace(/vllm==([\d.]+)/, 'vllm>=$1')) : m)))), ['OKV5105', 'OKV5109']);
    assert.deepEqual(codes(seeded(wheel, (ms) => ms.filter((m) => m.name !== 'orbitkv_vllm/__init__.py'))), ['OKV5103']);
    assert.deepEqual(codes(seeded(wheel, (ms) => ms.map((m) => (m.name.endsWith('/entry_points.txt') ? text(m, () => '') : m)))), ['OKV5104']);
    assert.deepEqual(codes(seeded(wheel, (ms) => ms.map((m) => (m.name === 'orbitkv_vllm/plugin.py' ? text(m, (s) => `${s}# edited\n`) : m)), true)), ['OKV5108']);
    assert.deepEqual(codes(seeded(wheel, (ms) => ms.map((m) => (m.name.endsWith('/METADATA') ? text(m, (s) => s.replace('Name: orbitkv-vllm', 'Name: something-else')) : m)))), ['OKV5102']);
    assert.deepEqual(codes(Buffer.from('not a zip')), ['OKV5101']);
  });

  it('package-check exits 1 and names the violation through the CLI', async () => {
    const bad = join(tempDir('badwheel'), 'orbitkv_vllm-0.1.0-py3-none-any.whl');
    writeFileSync(bad, seeded(wheelFiles().find((f) => f.includes('vllm'))!, (ms) => [...ms, { name: 'orbitkv_vllm/runner_patch.py', bytes: Buffer.from('') }]));
    const io = captureIo(REPO);
    assert.equal(await runCli(['package-check', '--registry', join(REPO, 'contracts'), '--format', 'json', bad], io), 1);
    const report = JSON.parse(io.stderr) as { diagnostics: { code: string; message: string }[] };
    assert.deepEqual(report.diagnostics.map((d) => d.code), ['OKV5106']);
    assert.match(report.diagnostics[0]!.message, /runner_patch/);
  });
});
