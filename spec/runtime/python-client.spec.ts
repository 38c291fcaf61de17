import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_PY } from '../../generators/client/index.js';
import { NS, acceptedProfile, startManager, tempDir, type ManagerProcess } from './support.js';

const SCRIPT = String.raw`
import json, sys
sys.path.insert(0, sys.argv[1])
import orbitkv_client as okv
sock, profile, ns = sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
out = {}
with okv.Connection(sock) as c:
    out["welcome"] = c.hello(profile, client="py-spec")
    pages = okv.PageFile(4, out["welcome"]["blockBytes"])
    try:
        c.register_pages(pages)
        for i in range(2):
            pages.page(i)[:] = bytes([65 + i]) * pages.page_bytes
        out["save"] = c.save(ns, ["p0", "p1"], [0, 1])
        t = c.lookup(ns, ["p0", "p1", "p2"], "py-req")
        out["lookup"] = t
        out["restore"] = c.restore(t["ticket"], [2, 3])
        out["bytes"] = [bytes(pages.page(2)[:4]).decode(), bytes(pages.page(3)[:4]).decode()]
        out["flags"] = [pages.flag(2), pages.flag(3)]
        out["echo"] = c.echo({"x": [1, "é"]})
        try:
            c.restore(t["ticket"], [0])
        except okv.ManagerRefused as e:
            out["refused"] = e.code
    finally:
        pages.close()
try:
    okv.Connection(sock).hello({"engine": "vllm"})
except okv.ManagerRefused as e:
    out["malformed"] = e.code
print(json.dumps(out))
`;

describe('generators/client: the Python protocol core against a real Manager', function () {
  this.timeout(60_000);
  let m: ManagerProcess;
  before(async () => {
    m = await startManager(['--dram', '256k', '--block-size', '64k']);
  });
  after(async () => {
    if (m.child.exitCode === null) await m.stop();
  });

  it('handshakes, registers /dev/shm pages, saves, looks up, restores with flags; refusals raise with their code', () => {
    const dir = tempDir('py');
    writeFileSync(join(dir, 'orbitkv_client.py'), CLIENT_PY);
    const r = spawnSync('python3', ['-I', '-c', SCRIPT, dir, m.socket, JSON.stringify(acceptedProfile()), JSON.stringify(NS)], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, { [k: string]: unknown }>;
    assert.equal(out.welcome!.blockBytes, 65536);
    assert.deepEqual(out.save!.blocks, ['stored', 'stored']);
    assert.equal(out.lookup!.boundary, 2);
    assert.equal(out.restore!.state, 'done');
    assert.deepEqual(out.bytes, ['AAAA', 'BBBB']);
    assert.deepEqual(out.flags, [1, 1]);
    assert.deepEqual(out.echo, { x: [1, 'é'] });
    assert.equal(out.refused, 'OKV7107');
    assert.equal(out.malformed, 'OKV7102');
  });

  it('imports with the standard library only and opens nothing at import', () => {
    const dir = tempDir('py-import');
    writeFileSync(join(dir, 'orbitkv_client.py'), CLIENT_PY);
    const script = `import sys, json; sys.path.insert(0, sys.argv[1]); before = set(sys.modules); import orbitkv_client; new = set(m.split('.')[0] for m in set(sys.modules) - before); print(json.dumps(sorted(n for n in new if n not in sys.stdlib_module_names and n != 'orbitkv_client')))`;
    const r = spawnSync('python3', ['-I', '-c', script, dir], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const extra = JSON.parse(r.stdout) as string[];
    assert.deepEqual(extra, []);
  });
});
