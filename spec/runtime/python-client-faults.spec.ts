import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_PY } from '../../generators/client/index.js';
import { tempDir } from './support.js';

/**
 * The generated Python client (a standalone copy of CLIENT_PY) against a fake Manager written in
 * Python: each case's server answers the way a faulty, stalled or restarted Manager would, and the
 * case reports what the client did as JSON.
 */
const FAKE = String.raw`
import json, os, socket, struct, sys, tempfile, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import okv_client as C
H = struct.Struct("<IHHIIII")
OP = C.OPCODE

def frame(op, rid, payload=b"", magic=C.MAGIC, length=None):
    return H.pack(magic, C.PROTOCOL_VERSION, op, rid & 0xFFFFFFFF, rid >> 32, len(payload) if length is None else length, 0) + payload

def jframe(op, rid, body):
    return frame(op, rid, json.dumps(body).encode())

def lookup_reply(ticket, state=1, boundary=1):
    return C._LOOKUP_REPLY.pack(state, 1, 0, ticket & 0xFFFFFFFF, ticket >> 32, boundary, boundary, boundary, 0, b"\0" * 16)

WELCOME = {"session": 1, "protocol": C.PROTOCOL_VERSION, "blockBytes": 65536, "maxPayload": 65536, "maxBlocks": 4096, "fd": {"socket": "/nonexistent", "token": "x"}}
NS = {"model": "m", "layout": "l", "blockSize": 16}
PROFILE = {"engine": "vllm", "version": "0", "env": {}, "config": {}}

class Conn:
    def __init__(self, s):
        self.s, self.buf, self.seen = s, b"", []
    def read_frame(self, timeout=10):
        self.s.settimeout(timeout)
        while True:
            if len(self.buf) >= 24:
                m, v, op, lo, hi, n, r = H.unpack_from(self.buf)
                if len(self.buf) >= 24 + n:
                    p = self.buf[24:24 + n]
                    self.buf = self.buf[24 + n:]
                    self.seen.append((op, (hi << 32) | lo, p))
                    return op, (hi << 32) | lo, p
            try:
                d = self.s.recv(65536)
            except OSError:
                return None
            if not d:
                return None
            self.buf += d
    def send(self, b):
        self.s.sendall(b)

class Fake:
    """handler(conn, index) runs per accepted connection in a thread."""
    def __init__(self, handler):
        self.dir = tempfile.mkdtemp()
        self.path = self.dir + "/f.sock"
        self.ls = socket.socket(socket.AF_UNIX)
        self.ls.bind(self.path)
        self.ls.listen(64)
        self.handler, self.n, self.conns = handler, 0, []
        threading.Thread(target=self.loop, daemon=True).start()
    def loop(self):
        while True:
            try:
                s, _ = self.ls.accept()
            except OSError:
                return
            c = Conn(s)
            self.conns.append(c)
            i = self.n
            self.n += 1
            threading.Thread(target=self.run, args=(c, i), daemon=True).start()
    def run(self, c, i):
        try:
            self.handler(c, i)
        except Exception as e:
            print("handler error", repr(e), file=sys.stderr)

def welcome(c):
    op, rid, p = c.read_frame()
    assert op == OP["hello"], op
    c.send(jframe(OP["welcome"], rid, WELCOME))
    return rid

def drain(c, seconds):
    """Reads (and records) whatever the client sends for a while."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if c.read_frame(max(0.01, end - time.monotonic())) is None:
            return

def lookup_when_ready(cl, *args, timeout=2, **kw):
    """lookup(), retried while the reconnect it started is still handshaking (ManagerNotReachable at once)."""
    end = time.monotonic() + timeout
    while True:
        try:
            return cl.lookup(*args, **kw)
        except C.ManagerNotReachable as e:
            if "handshaking" not in str(e.reason) or time.monotonic() > end:
                raise
            time.sleep(0.005)

def outcome(fn):
    try:
        return repr(fn())
    except Exception as e:
        return type(e).__name__

out = {}
def done():
    print(json.dumps(out))
`;

let dir: string | undefined;
function runFake(body: string, timeout = 60_000): Record<string, unknown> {
  if (dir === undefined) {
    dir = tempDir('pyfaults');
    writeFileSync(join(dir, 'okv_client.py'), CLIENT_PY);
  }
  const script = join(dir, `case-${Math.random().toString(36).slice(2)}.py`);
  writeFileSync(script, FAKE + body);
  const r = spawnSync('python3', ['-I', script], { encoding: 'utf8', timeout });
  assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

describe('generators/client: the shipped Python client against a faulty fake Manager', function () {
  this.timeout(120_000);

  it('A: a queued cancel meeting MAX_OUTSTANDING waiting requests during dispatch does not wedge the client: every reply settles, the cancel goes out after', () => {
    const out = runFake(String.raw`
go = threading.Event()
cancels = []
def h(c, i):
    welcome(c)
    rids = []
    while len(rids) < C.MAX_OUTSTANDING:
        rids.append(c.read_frame(30)[1])
    go.wait(30)
    first = rids[0]
    reply = jframe(OP["lookupPending"], first, {"ticket": 9, "state": "pending"})
    for r in rids:
        reply += frame(OP["lookupBinaryResult"], r, lookup_reply(r))
    c.send(reply)
    while True:
        fr = c.read_frame(10)
        if fr is None:
            return
        if fr[0] == OP["cancel"]:
            cancels.append(json.loads(fr[2]))
            c.send(jframe(OP["cancelled"], fr[1], {"ticket": 9, "state": "cancelled"}))
f = Fake(h)
cl = C.Client(PROFILE, "x", socket_path=f.path)
t0 = cl.lookup(NS, ["a"], "r0")
cl.cancel(t0)  # pending, its id not known yet: the cancel is sent when LOOKUP_PENDING names it
ts = [cl.lookup(NS, ["a"], "r%d" % k) for k in range(1, C.MAX_OUTSTANDING)]
go.set()
time.sleep(0.3)
results = {}
for t in ts[-3:]:
    key = outcome(lambda: t.wait(2) and t.wait(2).state)
    results[key] = results.get(key, 0) + 1
end = time.monotonic() + 2
while not cancels and time.monotonic() < end:
    cl._pump(0.05)
cl._pump(0.2)
out["results"] = results
out["waiting"] = len(cl._waiting)
out["buf"] = len(cl._buf)
out["cancels"] = cancels
out["connected"] = cl.connected
cl.close()
done()
`);
    assert.deepEqual(out.results, { "'ready'": 3 }, JSON.stringify(out));
    assert.equal(out.buf, 0);
    assert.equal(out.waiting, 0);
    assert.deepEqual(out.cancels, [{ ticket: 9 }]);
    assert.equal(out.connected, true);
  });

  it('B: a malformed reply (pending not JSON or not an object, ERROR not JSON, wrong-size binary result, unknown opcode answering a lookup) is a ProtocolError: the connection drops, the ticket is cancelled connection-lost, the next lookup reconnects', () => {
    const out = runFake(String.raw`
CASES = {
    "pending not JSON": lambda rid: frame(OP["lookupPending"], rid, b"{oops") + frame(OP["lookupBinaryResult"], rid, lookup_reply(5)),
    "pending a list": lambda rid: frame(OP["lookupPending"], rid, b"[1]") + frame(OP["lookupBinaryResult"], rid, lookup_reply(5)),
    "pending not UTF-8": lambda rid: frame(OP["lookupPending"], rid, b"\xff\xfe") + frame(OP["lookupBinaryResult"], rid, lookup_reply(5)),
    "ERROR not JSON": lambda rid: frame(OP["error"], rid, b"not json"),
    "binary result of 10 bytes": lambda rid: frame(OP["lookupBinaryResult"], rid, b"\0" * 10),
    "unknown opcode 77": lambda rid: frame(77, rid, b""),
}
for name, reply in CASES.items():
    def h(c, i, reply=reply):
        welcome(c)
        op, rid, p = c.read_frame()
        if i == 0:
            c.send(reply(rid))
        else:
            c.send(frame(OP["lookupBinaryResult"], rid, lookup_reply(6)))
        drain(c, 3)
    f = Fake(h)
    cl = C.Client(PROFILE, "x", socket_path=f.path)
    t = cl.lookup(NS, ["a"], "r")
    time.sleep(0.2)
    first = outcome(t.poll)
    connected = cl.connected
    r = t.poll()
    second = [r.state, r.reason] if r is not None else None
    again = lookup_when_ready(cl, NS, ["a"], "r2").wait(2)
    out[name] = [first, connected, second, again.state if again is not None else None, len(cl._buf)]
    cl.close()
done()
`);
    for (const name of ['pending not JSON', 'pending a list', 'pending not UTF-8', 'ERROR not JSON', 'binary result of 10 bytes', 'unknown opcode 77']) {
      assert.deepEqual(out[name], ['ProtocolError', false, ['cancelled', 'connection-lost'], 'ready', 0], `${name}: ${JSON.stringify(out[name])}`);
    }
  });

  it('C: a Manager that stops answering (connected, stalled) times a ticket out on the client past deadline_ms + LOOKUP_GRACE: timed-out, reason no-reply, a cancel sent, nothing left waiting', () => {
    const out = runFake(String.raw`
def h(c, i):
    welcome(c)
    op, rid, p = c.read_frame()
    c.send(jframe(OP["lookupPending"], rid, {"ticket": 7, "state": "pending"}))
    drain(c, 6)   # stalled: reads, never answers
f = Fake(h)
cl = C.Client(PROFILE, "x", socket_path=f.path)
start = time.monotonic()
t = cl.lookup(NS, ["a"], "r", deadline_ms=100)
r = None
while time.monotonic() - start < 5 and r is None:
    r = t.poll()
    time.sleep(0.01)
out["after"] = round(time.monotonic() - start, 2)
out["result"] = [r.state, r.reason, r.ticket] if r is not None else None
out["waiting"] = len(cl._waiting)
time.sleep(0.2)
out["sent"] = [[op, json.loads(p)] for op, rid, p in f.conns[0].seen if op == OP["cancel"]]
out["grace"] = getattr(C, "LOOKUP_GRACE", None)
cl.close()
done()
`);
    assert.deepEqual(out.result, ['timed-out', 'no-reply', 7], JSON.stringify(out));
    assert.ok((out.after as number) >= 0.1 + (out.grace as number) && (out.after as number) < 0.1 + (out.grace as number) + 1, JSON.stringify(out));
    assert.equal(out.waiting, 0);
    assert.deepEqual(out.sent, [[13, { ticket: 7 }]]);
  });

  it('D: a lookup cancelled before its id was known and answered ready at once (no LOOKUP_PENDING) gives its leases back: the binary RELEASE is sent, the ticket settles cancelled', () => {
    const out = runFake(String.raw`
def h(c, i):
    welcome(c)
    op, rid, p = c.read_frame()
    time.sleep(0.3)   # the client cancels first
    c.send(frame(OP["lookupBinaryResult"], rid, lookup_reply(42)))
    drain(c, 3)
f = Fake(h)
cl = C.Client(PROFILE, "x", socket_path=f.path)
t = cl.lookup(NS, ["a"], "r")
cl.cancel(t)
out["requested"] = t.cancel_requested
r = t.wait(2)
out["result"] = [r.state, r.ticket] if r is not None else None
cl._pump(0.3)
time.sleep(0.2)
out["sent"] = [[op, p.hex()] for op, rid, p in f.conns[0].seen if op != OP["hello"] and op != OP["lookupBinary"]]
out["release"] = C.encode_release(42).hex()
out["waiting"] = len(cl._waiting)
cl.close()
done()
`);
    assert.equal(out.requested, true);
    assert.deepEqual(out.result, ['cancelled', 42], JSON.stringify(out));
    assert.deepEqual(out.sent, [[25, out.release]]);
    assert.equal(out.waiting, 0);
  });

  it('H: an answer that comes after the client gave up (no reply by deadline_ms + LOOKUP_GRACE) is not dropped: a ready one is released (binary RELEASE), one named pending is cancelled', () => {
    const out = runFake(String.raw`
def h(c, i):
    welcome(c)
    op, rid1, p = c.read_frame()
    op, rid2, p = c.read_frame()
    time.sleep(1.4)   # stalled past 0.1 s + LOOKUP_GRACE: the client gives up on both
    c.send(frame(OP["lookupBinaryResult"], rid1, lookup_reply(42)))
    c.send(jframe(OP["lookupPending"], rid2, {"ticket": 43, "state": "pending"}))
    drain(c, 3)
f = Fake(h)
cl = C.Client(PROFILE, "x", socket_path=f.path)
a = cl.lookup(NS, ["a"], "r1", deadline_ms=100)
b = cl.lookup(NS, ["b"], "r2", deadline_ms=100)
ra, rb = a.wait(3), b.wait(3)
out["results"] = [[r.state, r.reason] for r in (ra, rb)]
out["abandoned"] = len(cl._abandoned)
end = time.monotonic() + 1.5
while time.monotonic() < end:
    cl._pump(0.05)
time.sleep(0.2)
out["sent"] = [[op, p.hex() if op == OP["releaseBinary"] else json.loads(p)] for op, rid, p in f.conns[0].seen if op not in (OP["hello"], OP["lookupBinary"])]
out["release"] = C.encode_release(42).hex()
out["left"] = len(cl._abandoned)
cl.close()
done()
`);
    assert.deepEqual(out.results, [['timed-out', 'no-reply'], ['timed-out', 'no-reply']], JSON.stringify(out));
    assert.equal(out.abandoned, 2);
    assert.deepEqual(out.sent, [[25, out.release], [13, { ticket: 43 }]], JSON.stringify(out));
    assert.equal(out.left, 1, 'the pending one waits for its final answer (after the cancel)');
  });

  it('I: on a reconnect the pages go again as part of the handshake, never waited for by a lookup: ManagerNotReachable (handshaking) at once while REGISTER_PAGES is unanswered, no lookup sent before it, then lookups go', () => {
    const out = runFake(String.raw`
fdpath = tempfile.mkdtemp() + "/fd.sock"
fl = socket.socket(socket.AF_UNIX)
fl.bind(fdpath)
fl.listen(8)
deposits = []
def fd_loop():
    while True:
        try:
            s, _ = fl.accept()
        except OSError:
            return
        msg, fds, _f, _a = socket.recv_fds(s, 65536, 4)
        deposits.append(len(fds))
        for x in fds:
            os.close(x)
        body = json.dumps({"ok": True}).encode()
        s.sendall(C._CHANNEL.pack(len(body), 0) + body)
        s.close()
threading.Thread(target=fd_loop, daemon=True).start()
W = dict(WELCOME, fd={"socket": fdpath, "token": "t"})
order = []
def h(c, i):
    op, rid, p = c.read_frame()
    c.send(jframe(OP["welcome"], rid, W))
    op, rid, p = c.read_frame()
    assert op == OP["registerPages"], op
    order.append((i, "registerPages"))
    if i == 1:
        time.sleep(1.5)   # mapping a large registration: seconds
    c.send(jframe(OP["pagesRegistered"], rid, {"pages": 2}))
    if i == 0:
        time.sleep(0.1)
        c.s.close()       # the Manager restarts
        return
    while True:
        f = c.read_frame(5)
        if f is None:
            return
        op, rid, p = f
        order.append((i, op))
        if op == OP["lookupBinary"]:
            c.send(frame(OP["lookupBinaryResult"], rid, lookup_reply(9)))
f = Fake(h)
cl = C.Client(PROFILE, "x", socket_path=f.path)
cl.register_pages(65536, 2)
time.sleep(0.3)
calls, whys, result = [], [], None
end = time.monotonic() + 4
while time.monotonic() < end and result is None:
    t0 = time.monotonic()
    try:
        t = cl.lookup(NS, ["a"], "r")
        result = t.wait(2)
        if result is not None and result.reason == "connection-lost":
            result = None   # sent before the client saw the restart: the next call reconnects
    except C.ManagerNotReachable as e:
        whys.append(e.why)
    calls.append(time.monotonic() - t0)
    time.sleep(0.01)
out["result"] = result.state if result is not None else None
out["slowest"] = round(max(calls), 3)
out["handshaking"] = whys.count("handshaking")
out["deposits"] = deposits
out["first_on_1"] = [x for x in order if x[0] == 1][:2]
cl.close()
done()
`);
    assert.equal(out.result, 'ready', JSON.stringify(out));
    assert.ok((out.slowest as number) < 0.3, `a lookup waited ${out.slowest} s for the re-registration`);
    assert.ok((out.handshaking as number) >= 10, JSON.stringify(out));
    assert.deepEqual(out.deposits, [1, 1]);
    assert.deepEqual(out.first_on_1, [[1, 'registerPages'], [1, 23]], 'no lookup before the pages are registered again');
  });

  it('J: the bench core (Connection) meets a reply that is not UTF-8 JSON with ProtocolError, for a JSON request and for a refused binary lookup', () => {
    const out = runFake(String.raw`
def h(c, i):
    op, rid, p = c.read_frame()
    c.send(frame(OP["welcome"], rid, b"\xff{not json"))
    op, rid, p = c.read_frame()
    c.send(frame(OP["error"], rid, b"{truncated"))
f = Fake(h)
k = C.Connection(f.path, timeout=5)
out["hello"] = outcome(lambda: k.hello(PROFILE))
out["lookup"] = outcome(lambda: k.lookup(NS, ["a"], "r"))
k.close()
done()
`);
    assert.deepEqual(out, { hello: 'ProtocolError', lookup: 'ProtocolError' });
  });

  it('E: a Manager that refuses the handshake after a reconnect is retried with the doubling back-off; inside it the refusal is raised again at once', () => {
    const out = runFake(String.raw`
def h(c, i):
    if i == 0:
        welcome(c)
        c.read_frame(10)
        c.s.close()   # the Manager "restarts", and now refuses this profile
        return
    op, rid, p = c.read_frame()
    c.send(jframe(OP["refused"], rid, {"code": "OKV7103", "message": "profile rejected", "reason": "rejected-profile"}))
    c.s.close()
f = Fake(h)
cl = C.Client(PROFILE, "x", socket_path=f.path)
t = cl.lookup(NS, ["a"], "r")
out["first"] = t.wait(2).reason
n0 = f.n
start = time.monotonic()
kinds = {}
while time.monotonic() - start < 1.0:   # a scheduler looking up every step
    try:
        cl.lookup(NS, ["a"], "r")
        kinds["ok"] = kinds.get("ok", 0) + 1
    except C.ManagerError as e:
        key = "%s %s" % (type(e).__name__, "handshaking" if "handshaking" in str(getattr(e, "reason", "")) else e.code)
        kinds[key] = kinds.get(key, 0) + 1
    time.sleep(0.001)
out["handshakes"] = f.n - n0
out["kinds"] = sorted(kinds)
cl.close()
done()
`);
    assert.equal(out.first, 'connection-lost');
    // The reconnect a lookup starts raises handshaking until the refusal arrives (item G), then the refusal.
    assert.deepEqual((out.kinds as string[]).filter((k) => k !== 'ManagerNotReachable handshaking'), ['ManagerRefused OKV7103'], JSON.stringify(out));
    assert.ok((out.handshakes as number) >= 2 && (out.handshakes as number) <= 8, JSON.stringify(out));
  });

  it('F: request ids are per connection: a reconnect starts again at 1 (HELLO), whatever the lost connection reached', () => {
    const out = runFake(String.raw`
def h(c, i):
    welcome(c)
    if i == 0:
        c.read_frame(10)
        c.s.close()
        return
    op, rid, p = c.read_frame(10)
    c.send(frame(OP["lookupBinaryResult"], rid, lookup_reply(3)))
    drain(c, 2)
f = Fake(h)
cl = C.Client(PROFILE, "x", socket_path=f.path)
cl._next_id = 1 << 40   # as after many requests
t = cl.lookup(NS, ["a"], "r")
out["first"] = t.wait(2).reason
r = lookup_when_ready(cl, NS, ["a"], "r2").wait(2)
out["second"] = r.state if r is not None else None
out["ids"] = [[op, rid] for op, rid, p in f.conns[1].seen]
cl.close()
done()
`);
    assert.equal(out.first, 'connection-lost');
    assert.equal(out.second, 'ready');
    assert.deepEqual(out.ids, [[1, 1], [23, 2]]);
  });

  it('G: the reconnect a lookup starts never waits for WELCOME: ManagerNotReachable (handshaking) at once until it arrives, then lookups go; one that never comes is a lost connection with back-off past connect_timeout', () => {
    const out = runFake(String.raw`
def h(c, i):
    if i == 1:
        op, rid, p = c.read_frame(10)
        time.sleep(1.0)   # a slow (stopped, then resumed) Manager
        c.send(jframe(OP["welcome"], rid, WELCOME))
    elif i == 2:
        c.read_frame(10)
        drain(c, 3)       # stalled: never answers HELLO
        return
    else:
        welcome(c)
    while True:
        fr = c.read_frame(10)
        if fr is None:
            return
        if i == 0:
            c.s.close()
            return
        c.send(frame(OP["lookupBinaryResult"], fr[1], lookup_reply(8)))
def step(cl, name):
    start = time.monotonic()
    try:
        t = cl.lookup(NS, ["a"], name)
        kind = "ticket"
    except C.ManagerError as e:
        t, kind = None, "%s: %s" % (type(e).__name__, e.reason if hasattr(e, "reason") else e)
    return time.monotonic() - start, kind, t
f = Fake(h)
cl = C.Client(PROFILE, "x", socket_path=f.path, connect_timeout=0.5)
cl.connect_timeout = 2.0
t = cl.lookup(NS, ["a"], "r")
out["first"] = t.wait(2).reason
worst, kinds, ready = 0.0, [], None
start = time.monotonic()
while time.monotonic() - start < 3 and ready is None:
    took, kind, t = step(cl, "r")
    worst = max(worst, took)
    if not kinds or kinds[-1] != kind.split(" (")[0]:
        kinds.append(kind.split(" (")[0])
    if t is not None:
        ready = t.wait(2)
    time.sleep(0.01)
out["worst"] = round(worst, 3)
out["kinds"] = kinds
out["ready"] = ready.state if ready is not None else None
out["session"] = cl.welcome["session"]
# the stalled one: the third connection never answers HELLO
cl.connect_timeout = 0.5
cl._lost()
worst, kinds = 0.0, []
start = time.monotonic()
while time.monotonic() - start < 1.0:
    took, kind, t = step(cl, "s")
    worst = max(worst, took)
    kind = kind.split(" (")[0].split(":")[0] + (" handshaking" if "handshaking" in kind else "") + (" hello" if "no reply to hello" in kind else "")
    if not kinds or kinds[-1] != kind:
        kinds.append(kind)
    time.sleep(0.01)
out["stalled_worst"] = round(worst, 3)
out["stalled_kinds"] = kinds[:3]
out["connections"] = f.n
cl.close()
done()
`);
    assert.equal(out.first, 'connection-lost');
    assert.ok((out.worst as number) < 0.2, JSON.stringify(out));
    assert.equal((out.kinds as string[])[0], 'ManagerNotReachable: handshaking', JSON.stringify(out));
    assert.equal(out.ready, 'ready');
    assert.ok((out.stalled_worst as number) < 0.2, JSON.stringify(out));
    assert.deepEqual(out.stalled_kinds, ['ManagerNotReachable handshaking', 'ManagerNotReachable hello', 'ManagerNotReachable'], JSON.stringify(out));
  });
});
