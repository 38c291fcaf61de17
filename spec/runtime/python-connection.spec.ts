import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_PY } from '../../generators/client/index.js';
import { tempDir } from './support.js';

/**
 * The bare protocol core (`Connection`, what the lookup bench drives) against a scripted peer:
 * a thread serving a Unix socket that answers with replies split across writes, interim frames,
 * replies larger than the read buffer, bad magic, or nothing at all; in both ways of waiting.
 */
const SCRIPT = String.raw`
import json, os, socket, struct, sys, threading, time
sys.path.insert(0, sys.argv[1])
import orbitkv_client as okv
path = os.path.join(sys.argv[1], "peer.sock")
H = struct.Struct("<IHHIIII")
def frame(op, rid, payload, magic=okv.MAGIC):
    return H.pack(magic, okv.PROTOCOL_VERSION, op, rid & 0xffffffff, rid >> 32, len(payload), 0) + payload
def read_frame(conn):
    head = b""
    while len(head) < 24:
        chunk = conn.recv(24 - len(head))
        if not chunk:
            return None
        head += chunk
    _m, _v, op, lo, hi, n, _r = H.unpack(head)
    body = b""
    while len(body) < n:
        body += conn.recv(n - len(body))
    return op, lo | (hi << 32), body
def peer(server):
    conn, _ = server.accept()
    while True:
        got = read_frame(conn)
        if got is None:
            return
        op, rid, body = got
        mode = json.loads(body)["mode"]
        reply = frame(op + 1, rid, body)
        if mode == "split":
            for part in (reply[:5], reply[5:30], reply[30:]):
                conn.sendall(part)
                time.sleep(0.02)
        elif mode == "interim":
            conn.sendall(frame(okv.OPCODE["lookupPending"], rid, b'{"state":"pending"}') + frame(op + 1, rid - 1, b'{"stale":1}') + reply)
        elif mode == "large":
            conn.sendall(frame(op + 1, rid, json.dumps({"mode": "large", "pad": "x" * 200000}).encode()))
        elif mode == "fire":
            pass
        elif mode == "silent":
            continue
        elif mode == "bad":
            conn.sendall(frame(op + 1, rid, body, magic=0x12345678))
        else:
            conn.sendall(reply)
out = {}
for spin in (False, True):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(path):
        os.unlink(path)
    server.bind(path)
    server.listen(1)
    threading.Thread(target=peer, args=(server,), daemon=True).start()
    c = okv.Connection(path, timeout=0.5, spin=spin)
    got = {}
    for mode in ("plain", "split", "interim", "large", "plain"):
        op, payload = c.request_raw(okv.OPCODE["echo"], json.dumps({"mode": mode}).encode())
        got[mode] = [op, len(payload), json.loads(payload)["mode"]]
    c.send_raw(okv.OPCODE["echo"], b'{"mode":"plain"}')
    op, payload = c.request_raw(okv.OPCODE["echo"], b'{"mode":"split"}')
    got["after-fire"] = json.loads(payload)["mode"]
    t0 = time.monotonic()
    try:
        c.request_raw(okv.OPCODE["echo"], b'{"mode":"silent"}')
        got["silent"] = "answered"
    except okv.ConnectionLost:
        got["silent"] = round(time.monotonic() - t0, 2)
    c.close()
    server.close()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    os.unlink(path)
    server.bind(path)
    server.listen(1)
    threading.Thread(target=peer, args=(server,), daemon=True).start()
    c = okv.Connection(path, timeout=0.5, spin=spin)
    try:
        c.request_raw(okv.OPCODE["echo"], b'{"mode":"bad"}')
        got["bad"] = "accepted"
    except okv.ProtocolError as e:
        got["bad"] = e.code
    c.close()
    server.close()
    out["spin" if spin else "block"] = got
print(json.dumps(out))
`;

describe('generators/client: the bare protocol core (Connection) reads whole frames in either way of waiting', function () {
  this.timeout(60_000);

  it('reassembles split replies, skips interim and stale frames, grows for a large reply, bounds a silent wait, refuses bad magic', () => {
    const dir = tempDir('py-connection');
    writeFileSync(join(dir, 'orbitkv_client.py'), CLIENT_PY);
    const r = spawnSync('python3', ['-I', '-c', SCRIPT, dir], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Record<string, Record<string, unknown>>;
    const echoed = 20;
    for (const way of ['block', 'spin']) {
      const got = out[way]!;
      assert.deepEqual(got.plain, [echoed, 17, 'plain'], way);
      assert.deepEqual(got.split, [echoed, 17, 'split'], way);
      assert.deepEqual(got.interim, [echoed, 19, 'interim'], way);
      assert.equal((got.large as unknown[])[0], echoed, way);
      assert.ok(((got.large as number[])[1] ?? 0) > 200_000, way);
      assert.equal(got['after-fire'], 'split', way);
      // Bounded by the 0.5 s timeout (late by whatever the machine's load adds, never early, never forever).
      assert.ok(typeof got.silent === 'number' && got.silent >= 0.45 && got.silent < 5, `${way}: ${String(got.silent)}`);
      assert.equal(got.bad, 'protocol', way);
    }
  });
});
