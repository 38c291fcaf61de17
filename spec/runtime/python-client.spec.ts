import { TICKET_ACTORS } from '../../engine/runtime/service/index.js';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { generatedOnce } from '../generators/support.js';
import { LOOKUP_REPLY_BYTES, encodeLookupRequest, encodeReleaseRequest, writeLookupReply } from '../../engine/runtime/index.js';
import { NS, acceptedProfile, startManager, tempDir, type ManagerProcess } from './support.js';

/**
 * The client the adapter packages ship (`<package>/_client.py`), run by python3 children
 * against a real Manager process: the generated vLLM package is imported as it is installed.
 */
const PRELUDE = String.raw`
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from orbitkv_vllm import _client, manager
sock, profile, ns = sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
out = {}
def done():
    print(json.dumps(out))
`;

function runPython(body: string, m: ManagerProcess | { socket: string }, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Record<string, unknown> {
  const root = join(generatedOnce(), 'orbitkv-vllm');
  const r = spawnSync('python3', ['-I', '-c', PRELUDE + body, root, m.socket, JSON.stringify(acceptedProfile()), JSON.stringify(NS), ...extra], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

for (const actors of TICKET_ACTORS) {
describe(`generators/client: the shipped Python client against a real Manager (ticket actors: ${actors})`, function () {
  this.timeout(120_000);
  let m: ManagerProcess;
  before(async () => {
    m = await startManager(['--dram', '1m', '--block-size', '64k', '--ticket-actors', actors]);
  });
  after(async () => {
    if (m.child.exitCode === null) await m.stop();
  });

  it('registers a sealed memfd of 4 layers, saves, looks up, restores: every layer lands, bytes restored equal bytes saved', () => {
    const out = runPython(String.raw`
c = _client.connect(profile, "worker", socket_path=sock, name="py-spec")
reg = c.register_pages(16384, 6, 4)
for block in range(2):
    for layer in range(4):
        reg.page(block, layer)[:] = bytes([65 + block * 4 + layer]) * 16384
out["save"] = c.save(ns, ["b0", "b1"], [0, 1]).wait(10)
t = c.lookup(ns, ["b0", "b1", "b2"], "py-req")
res = t.wait(5)
out["lookup"] = [res.state, res.boundary, res.tiers]
reg.page(4, 2)[:] = b"\xff" * 16384
r = c.restore(t, [4, 5])
out["layers"] = [r.wait_layer(layer, 5) for layer in range(4)]
out["restore"] = r.wait(5)
out["same"] = all(bytes(reg.page(4 + b, l)) == bytes(reg.page(b, l)) for b in range(2) for l in range(4))
out["flags"] = [reg.flag(4 + b, l) for b in range(2) for l in range(4)]
out["failed"] = r.failed_blocks()
c.close()
done()
`, m);
    assert.deepEqual((out.save as { blocks: string[] }).blocks, ['stored', 'stored']);
    assert.deepEqual(out.lookup, ['ready', 2, { dram: 2, ssd: 0 }]);
    assert.deepEqual(out.layers, [true, true, true, true]);
    assert.equal((out.restore as { state: string }).state, 'done');
    assert.equal(out.same, true);
    assert.deepEqual(out.flags, [1, 1, 1, 1, 1, 1, 1, 1]);
    assert.deepEqual(out.failed, []);
  });

  it('wait_layer is False while nothing has landed (the Manager stopped), True once it has; a cancelled restore reports every block failed', () => {
    const out = runPython(String.raw`
import signal
pid = int(sys.argv[5])
c = _client.connect(profile, "worker", socket_path=sock)
reg = c.register_pages(32768, 4, 2)
for layer in range(2):
    reg.page(0, layer)[:] = bytes([48 + layer]) * 32768
c.save(ns, ["w0"], [0]).wait(10)
t = c.lookup(ns, ["w0"], "stopped")
t.wait(5)
os.kill(pid, signal.SIGSTOP)
try:
    r = c.restore(t, [1])
    out["while_stopped"] = [r.wait_layer(0, 0.3), r.wait_layer(1, 0.05), r.done()]
finally:
    os.kill(pid, signal.SIGCONT)
out["after"] = [r.wait_layer(0, 5), r.wait_layer(1, 5)]
out["result"] = r.wait(5)["state"]
out["landed"] = bytes(reg.page(1, 1)) == bytes(reg.page(0, 1))
t2 = c.lookup(ns, ["w0"], "cancelled")
t2.wait(5)
os.kill(pid, signal.SIGSTOP)
try:
    r2 = c.restore(t2, [2])
    c.cancel(r2)
finally:
    os.kill(pid, signal.SIGCONT)
res2 = r2.wait(5)
out["cancelled"] = [res2["state"], r2.failed_blocks(), r2.wait_layer(0, 1)]
c.close()
done()
`, m, [String(m.child.pid)]);
    assert.deepEqual(out.while_stopped, [false, false, false]);
    assert.deepEqual(out.after, [true, true]);
    assert.equal(out.result, 'done');
    assert.equal(out.landed, true);
    assert.deepEqual(out.cancelled, ['cancelled', [0], true]);
  });

  it('a pending lookup polls None (never a miss) until the other rank reports; both get the smaller boundary', () => {
    const out = runPython(String.raw`
a = _client.connect(profile, "rank0", socket_path=sock)
b = _client.connect(profile, "rank1", socket_path=sock)
ra = a.register_pages(65536, 2, 1)
ra.page(0)[:] = b"x" * 65536
ra.page(1)[:] = b"y" * 65536
a.save(ns, ["p0", "p1"], [0, 1]).wait(10)
t0 = a.lookup(ns, ["p0", "p1"], "two-ranks", rank=0, world_size=2, deadline_ms=20000)
polls = []
start = time.monotonic()
while time.monotonic() - start < 0.6:
    polls.append(t0.poll())
    time.sleep(0.01)
out["pending"] = sorted(set(repr(p) for p in polls))
out["id_known"] = t0.id is not None
t1 = b.lookup(ns, ["p0"], "two-ranks", rank=1, world_size=2, deadline_ms=20000)
r0, r1 = t0.wait(5), t1.wait(5)
out["results"] = [[r0.state, r0.boundary], [r1.state, r1.boundary]]
a.release(t0); b.release(t1)
a.close(); b.close()
done()
`, m);
    assert.deepEqual(out.pending, ['None']);
    assert.equal(out.id_known, true, 'the LOOKUP_PENDING notice named the ticket');
    assert.deepEqual(out.results, [['ready', 1], ['ready', 1]]);
  });

  it('release sends the binary RELEASE and keeps nothing waiting: the leases go, a refused one is dropped', () => {
    const out = runPython(String.raw`
c = _client.connect(profile, "scheduler", socket_path=sock)
reg = c.register_pages(65536, 2, 1)
reg.page(0)[:] = b"r" * 65536
c.save(ns, ["py-rel0"], [0]).wait(10)
t = c.lookup(ns, ["py-rel0"], "py-release")
r = t.wait(5)
out["ready"] = [r.state, r.boundary]
before = c.status()
c.release(t)
out["waiting"] = len(c._waiting)
after = c.status()
out["pinned"] = [before["tiers"]["pinned"], after["tiers"]["pinned"]]
out["tickets"] = after["inFlight"]["tickets"]
c.release(t.id)
out["echo"] = c.echo({"still": "open"})
out["waiting_after_refusal"] = len(c._waiting)
c.close()
done()
`, m);
    assert.deepEqual(out.ready, ['ready', 1]);
    assert.equal(out.waiting, 0, 'a release is answered only if refused: nothing waits for it');
    assert.deepEqual(out.pinned, [1, 0]);
    assert.equal(out.tickets, 0);
    assert.deepEqual(out.echo, { still: 'open' });
    assert.equal(out.waiting_after_refusal, 0);
  });

  it('a lookup cancelled at once and answered ready at once leaves no lease pinned: the ticket settles cancelled and its leases are released', () => {
    const out = runPython(String.raw`
c = _client.connect(profile, "scheduler", socket_path=sock)
reg = c.register_pages(65536, 2, 1)
reg.page(0)[:] = b"k" * 65536
c.save(ns, ["py-cx0"], [0]).wait(10)
states = []
for i in range(20):
    t = c.lookup(ns, ["py-cx0"], "py-cancel-%d" % i)
    if i % 2:
        # The ready answer is in the socket before the cancel: it must not make the ticket ready.
        time.sleep(0.005)
    c.cancel(t)
    states.append(t.wait(5).state)
time.sleep(0.2)
out["states"] = sorted(set(states))
out["pinned"] = c.status()["tiers"]["pinned"]
c.close()
done()
`, m);
    assert.deepEqual(out.states, ['cancelled']);
    assert.equal(out.pinned, 0);
  });

  it('a connection the Manager closed for a request id past 2^53 - 1 reconnects with ids from 1 again: the next lookup is answered', () => {
    const out = runPython(String.raw`
c = _client.connect(profile, "scheduler", socket_path=sock)
c._next_id = 2 ** 53
t = c.lookup(ns, ["py-id0"], "py-id-fault")
try:
    r = t.wait(5)
except _client.ProtocolError as e:
    out["error"] = e.code
    r = t.poll()
out["faulted"] = [r.state, r.reason] if r is not None else None
res = []
end = time.monotonic() + 10
while len(res) < 3 and time.monotonic() < end:
    try:
        r = c.lookup(ns, ["py-id0"], "py-id-%d" % len(res)).wait(5)
        res.append(r.state if r is not None else None)
    except _client.ManagerNotReachable:
        time.sleep(0.01)  # the reconnect's handshake under way
out["after"] = res
c.close()
done()
`, m);
    assert.equal(out.error, 'frame-fault');
    assert.deepEqual(out.faulted, ['cancelled', 'connection-lost']);
    assert.deepEqual(out.after, ['miss', 'miss', 'miss']);
  });

  it('cancel of a pending lookup and a deadline give cancelled and timed-out, never a miss', () => {
    const out = runPython(String.raw`
c = _client.connect(profile, "scheduler", socket_path=sock)
t = c.lookup(ns, ["q"], "cancel-me", rank=0, world_size=2, deadline_ms=20000)
out["before"] = repr(t.poll())
c.cancel(t)
out["cancelled"] = t.wait(5).state
late = c.lookup(ns, ["q"], "time-me-out", rank=0, world_size=2, deadline_ms=300)
out["timed"] = late.wait(5).state
c.close()
done()
`, m);
    assert.equal(out.before, 'None');
    assert.equal(out.cancelled, 'cancelled');
    assert.equal(out.timed, 'timed-out');
  });

  it('a rejected profile raises ManagerRefused with the Manager code; a missing Manager names the socket and the serve command', () => {
    const out = runPython(String.raw`
bad = dict(profile, version="0.0.1")
try:
    _client.connect(bad, "scheduler", socket_path=sock)
except _client.ManagerRefused as e:
    out["refused"] = [e.code, e.reason]
try:
    manager.connect("worker")
except manager.ManagerNotReachable as e:
    out["absent"] = str(e)
done()
`, m, [], { ORBITKV_MANAGER_SOCKET: join(tempDir('nomanager'), 'none.sock') });
    assert.deepEqual(out.refused, ['OKV7103', 'rejected-profile']);
    assert.match(String(out.absent), /^OrbitKV Manager not reachable for the worker half at \/.*none\.sock \(.*\)\. Start it with 'orbitkv serve', or point ORBITKV_MANAGER_SOCKET/);
  });

  it('an unsealed memfd is refused OKV7108 (not-sealed): its owner could truncate it under the Manager', () => {
    const out = runPython(String.raw`
c = _client.connect(profile, "worker", socket_path=sock)
reg = _client.Registration(65536, 2, 1, seal=False)
try:
    c._register(reg)
except _client.ManagerRefused as e:
    out["refused"] = [e.code, e.body.get("message")]
os.ftruncate(reg.fd, 0)
out["echo"] = c.echo({"still": "served"})
sealed = _client.Registration(65536, 1, 1)
try:
    os.ftruncate(sealed.fd, 0)
except PermissionError:
    out["sealed"] = "EPERM"
c.close()
done()
`, m);
    const [code, message] = out.refused as [string, string];
    assert.equal(code, 'OKV7108');
    assert.match(message, /not-sealed/);
    assert.deepEqual(out.echo, { still: 'served' });
    assert.equal(out.sealed, 'EPERM', 'a sealed memfd cannot be truncated at all');
  });

  it('a ticket shared by the process that looked up is restored by another process into its own pages (vLLM: scheduler looks up, worker loads)', () => {
    const out = runPython(String.raw`
sched = _client.connect(profile, "scheduler", socket_path=sock)
worker = _client.connect(profile, "worker", socket_path=sock)
src = sched.register_pages(65536, 1, 1)
src.page(0)[:] = b"s" * 65536
sched.save(ns, ["shared"], [0]).wait(10)
wreg = worker.register_pages(32768, 2, 2)
t = sched.lookup(ns, ["shared"], "shared-req")
t.wait(5)
grant = t.share()
out["grant"] = sorted(grant)
forged = dict(grant, grant="0" * len(grant["grant"]))
try:
    worker.restore(forged, [1]).wait(5)
except _client.ManagerRefused as e:
    out["forged"] = [e.code, e.reason]
r = worker.restore(json.loads(json.dumps(grant)), [1])
out["layers"] = [r.wait_layer(0, 5), r.wait_layer(1, 5)]
out["restored"] = r.wait(5)["state"]
out["bytes"] = (bytes(wreg.page(1, 0)[:2]) + bytes(wreg.page(1, 1)[-2:])).decode()
out["again"] = None
try:
    worker.restore(grant, [0]).wait(5)
except _client.ManagerRefused as e:
    out["again"] = e.reason
sched.close(); worker.close()
done()
`, m);
    assert.deepEqual(out.grant, ['grant', 'ticket']);
    assert.deepEqual(out.forged, ['OKV7107', 'unknown-grant']);
    assert.deepEqual(out.layers, [true, true]);
    assert.equal(out.restored, 'done');
    assert.equal(out.bytes, 'ssss');
    assert.notEqual(out.again, null, 'a consumed grant is not restored twice');
  });

  it('300 pending lookups on one connection do not hold up its save, cancel or echo', () => {
    const out = runPython(String.raw`
c = _client.connect(profile, "scheduler", socket_path=sock)
reg = c.register_pages(65536, 1, 1)
tickets = [c.lookup(ns, ["z%d" % i], "pend-%d" % i, rank=0, world_size=2, deadline_ms=30000) for i in range(300)]
start = time.monotonic()
s = c.save(ns, ["through"], [0]).wait(10)
out["save"] = s["blocks"] if s else None
out["echo"] = c.echo({"ok": 1})
out["seconds"] = time.monotonic() - start
out["pending"] = sum(1 for t in tickets if t.poll() is None)
for t in tickets:
    c.cancel(t)
out["cancelled"] = sorted(set(t.wait(10).state for t in tickets))
c.close()
done()
`, m);
    assert.deepEqual(out.save, ['stored']);
    assert.deepEqual(out.echo, { ok: 1 });
    assert.ok((out.seconds as number) < 5, `the save took ${String(out.seconds)} s behind pending lookups`);
    assert.equal(out.pending, 300);
    assert.deepEqual(out.cancelled, ['cancelled']);
  });

  it('the handshake carries the live profile: engine objects reduced to what the rejections read, the Manager gives the local verdict', () => {
    const out = runPython(String.raw`
from orbitkv_vllm import rejections
class Obj:
    def __init__(self, **kw):
        self.__dict__.update(kw)
env = dict(profile["env"], SECRET_TOKEN="do-not-send")
def live(config):
    return {"engine": "vllm", "version": profile["version"], "env": env, "config": config}
def as_objects(value):
    if isinstance(value, dict):
        return Obj(**{k: as_objects(v) for k, v in value.items()})
    return value
good = live({k: as_objects(v) for k, v in profile["config"].items()})
out["local_good"] = rejections.evaluate(good)["accepted"]
wire = _client.wire_profile(good)
out["secret_sent"] = "SECRET_TOKEN" in wire["env"]
c = _client.connect(good, "worker", socket_path=sock)
out["manager_good"] = "accepted"
c.close()
bad_config = {k: as_objects(v) for k, v in profile["config"].items()}
bad_config.setdefault("vllm_config", Obj())
bad_config["vllm_config"].speculative_config = Obj(method="eagle")
bad = live(bad_config)
out["local_bad"] = [r["id"] for r in rejections.evaluate(bad)["rejections"]]
try:
    _client.connect(bad, "worker", socket_path=sock)
    out["manager_bad"] = "accepted"
except _client.ManagerRefused as e:
    out["manager_bad"] = e.body.get("rejections")
done()
`, m);
    assert.equal(out.local_good, true);
    assert.equal(out.secret_sent, false, 'only the variables a rejection names travel');
    assert.equal(out.manager_good, 'accepted');
    assert.ok((out.local_bad as string[]).length > 0, 'the live speculative config is rejected locally');
    assert.deepEqual(out.manager_bad, out.local_bad, 'the Manager reaches the same verdict over the wire profile');
  });

  it('the binary LOOKUP and RELEASE: encode_lookup and encode_release write the bytes the TypeScript layouts write, decode_lookup_result reads its struct, a bad hash raises before anything is sent', () => {
    const req = { namespace: NS, hashes: ['b0', 'Zz_:+/=-9', 'x'.repeat(128)], request: 'rq-é', rank: 3, worldSize: 8, deadlineMs: 600_000 };
    const reply = Buffer.alloc(LOOKUP_REPLY_BYTES);
    writeLookupReply(reply, 0, { ticket: 2 ** 40 + 7, state: 'timedOut', boundary: 3, matched: 4, tiers: { dram: 1, ssd: 3 }, grant: '0123456789abcdef0123456789abcdef' });
    const out = runPython(String.raw`
req, reply = json.loads(sys.argv[5]), bytes.fromhex(sys.argv[6])
out["bytes"] = _client.encode_lookup(req["namespace"], req["hashes"], req["request"], req["rank"], req["worldSize"], req["deadlineMs"]).hex()
out["reply"] = _client.decode_lookup_result(reply)
bad = []
for hashes in (["has space"], [""], ["y" * 129], ["\u00e9"]):
    try:
        _client.encode_lookup(ns, hashes, "r")
    except ValueError:
        bad.append(hashes[0][:3])
out["bad"] = bad
# Values that are not str (a tuple of ints, an int request, a str subclass) go as their str() forms.
class Name(str):
    pass
out["converted"] = _client.encode_lookup({"model": Name("m"), "layout": "l", "blockSize": 16}, (1, 22), 7).hex() == _client.encode_lookup({"model": "m", "layout": "l", "blockSize": 16}, ["1", "22"], "7").hex()
out["release"] = _client.encode_release(2 ** 40 + 7).hex()
c = _client.Connection(sock, spin=True)
c.hello(profile)
out["conn"] = c.lookup(ns, ["never-saved"], "conn-req")
c.close()
done()
`, m, [JSON.stringify(req), reply.toString('hex')]);
    assert.equal(out.bytes, encodeLookupRequest(req).toString('hex'));
    assert.deepEqual(out.reply, { ticket: 2 ** 40 + 7, state: 'timedOut', boundary: 3, matched: 4, tiers: { dram: 1, ssd: 3 }, grant: '0123456789abcdef0123456789abcdef' });
    assert.deepEqual(out.bad, ['has', '', 'yyy', 'é']);
    assert.equal(out.converted, true);
    assert.equal(out.release, encodeReleaseRequest(2 ** 40 + 7).toString('hex'));
    assert.deepEqual({ ...(out.conn as object), ticket: 0 }, { ticket: 0, state: 'miss', boundary: 0, matched: 0, tiers: { dram: 0, ssd: 0 } });
  });

  it('imports with the standard library only and opens nothing at import', () => {
    const root = join(generatedOnce(), 'orbitkv-vllm');
    const script = `import sys, json; sys.path.insert(0, sys.argv[1]); before = set(sys.modules); import orbitkv_vllm._client, orbitkv_vllm.manager; new = set(m.split('.')[0] for m in set(sys.modules) - before); print(json.dumps(sorted(n for n in new if n not in sys.stdlib_module_names and n != 'orbitkv_vllm')))`;
    const r = spawnSync('python3', ['-I', '-c', script, root], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout) as string[], []);
  });
});
}

describe('generators/client: reconnecting to a restarted Manager', function () {
  this.timeout(120_000);

  it('fails the request in flight, backs off, then reconnects, handshakes and registers the same memfd again', async () => {
    const dir = join(tempDir('reconnect'), 'run');
    let m = await startManager(['--dram', '1m', '--block-size', '64k'], { socketDir: dir });
    const root = join(generatedOnce(), 'orbitkv-vllm');
    const script = PRELUDE + String.raw`
c = _client.connect(profile, "worker", socket_path=sock)
reg = c.register_pages(65536, 2, 1)
reg.page(0)[:] = b"r" * 65536
print(json.dumps({"ready": c.save(ns, ["before"], [0]).wait(10)["blocks"]}), flush=True)
sys.stdin.readline()
t = c.lookup(ns, ["before"], "after-restart")
lost = t.wait(2)
out["lost"] = [lost.state, lost.reason]
try:
    c.lookup(ns, ["x"], "again")
except _client.ManagerNotReachable as e:
    out["backoff"] = type(e).__name__
sys.stdout.write(json.dumps({"waiting": True}) + "\n"); sys.stdout.flush()
sys.stdin.readline()
deadline = time.monotonic() + 20
while True:
    try:
        s = c.save(ns, ["after"], [0]).wait(10)
        break
    except _client.ManagerNotReachable:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.05)
out["saved"] = s["blocks"]
t = c.lookup(ns, ["after"], "r2")
out["lookup"] = t.wait(5).state
r = c.restore(t, [1])
out["restored"] = r.wait(5)["state"]
out["same"] = bytes(reg.page(1)) == bytes(reg.page(0))
c.close()
done()
`;
    const child = spawn('python3', ['-I', '-c', script, root, m.socket, JSON.stringify(acceptedProfile()), JSON.stringify(NS)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const line = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const check = () => (stdout.split('\n').length > n ? resolve() : undefined);
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          check();
        });
        child.once('exit', () => reject(new Error(`python exited: ${stderr}`)));
        check();
      });
    await line(1);
    await m.kill9();
    child.stdin.write('\n');
    await line(2);
    m = await startManager(['--dram', '1m', '--block-size', '64k'], { socketDir: dir });
    child.stdin.write('\n');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    await m.stop();
    assert.equal(code, 0, stderr);
    const out = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    assert.deepEqual(out.lost, ['cancelled', 'connection-lost']);
    assert.equal(out.backoff, 'ManagerNotReachable');
    assert.deepEqual(out.saved, ['stored']);
    assert.equal(out.lookup, 'ready');
    assert.equal(out.restored, 'done');
    assert.equal(out.same, true);
  });
});
