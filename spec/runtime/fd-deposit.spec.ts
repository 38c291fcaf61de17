import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ManagerClient, OPCODE, fdSocketPath } from '../../engine/runtime/index.js';
import { acceptedProfile, pageFile, startManager, tempDir, type ManagerProcess } from './support.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The fd socket: where an engine deposits its pages' memfd (SCM_RIGHTS) into its own session. */
describe('runtime: the fd socket (memfd deposits)', function () {
  this.timeout(60_000);
  let m: ManagerProcess;
  before(async () => {
    m = await startManager(['--dram', '256k', '--block-size', '64k'], { socketDir: `${tempDir('fdsock')}/run` });
  });
  after(async () => {
    if (m.child.exitCode === null) await m.stop();
  });

  it('is 0600 beside the socket, and the WELCOME names it with a per-session token', async () => {
    assert.equal(statSync(fdSocketPath(m.socket)).mode & 0o777, 0o600);
    const a = await ManagerClient.connect(m.socket);
    const b = await ManagerClient.connect(m.socket);
    await a.hello(acceptedProfile());
    await b.hello(acceptedProfile());
    const fa = a.welcome!.fd as { socket: string; token: string };
    const fb = b.welcome!.fd as { socket: string; token: string };
    assert.equal(fa.socket, fdSocketPath(m.socket));
    assert.match(fa.token, /^[0-9a-f]{32}$/);
    assert.notEqual(fa.token, fb.token);
    await Promise.all([a.close(), b.close()]);
  });

  it("a deposit with another session's token is refused OKV7112 and registers nothing there", async () => {
    const a = await ManagerClient.connect(m.socket);
    const b = await ManagerClient.connect(m.socket);
    await a.hello(acceptedProfile());
    await b.hello(acceptedProfile());
    const pages = pageFile(1, 64 * 1024);
    // a's session id with b's token.
    const answer = await a.deposit(pages.fd, (b.welcome!.fd as { token: string }).token);
    assert.equal(answer.code, 'OKV7112');
    assert.equal(answer.reason, 'unknown-session');
    const r = await a.request(OPCODE.registerPages, { pageBytes: 64 * 1024, pages: 1, layers: 1 });
    assert.equal(r.body.code, 'OKV7108');
    assert.match(String(r.body.message), /no-fd/);
    await Promise.all([a.close(), b.close()]);
  });

  it('a peer of another uid that gets through widened modes is refused by the channel (SO_PEERCRED) and logged (root only)', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const fd = fdSocketPath(m.socket);
    chmodSync(dirname(dirname(m.socket)), 0o711);
    chmodSync(dirname(m.socket), 0o711);
    chmodSync(fd, 0o666);
    try {
      const script = String.raw`
import socket, struct, os, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
m = os.memfd_create("x")
body = b'{"session":1,"token":"00000000000000000000000000000000"}'
try:
    socket.send_fds(s, [struct.pack("<II", len(body), 1) + body], [m])
    print("answered" if s.recv(64) else "closed")
except OSError as e:
    print("closed")
`;
      const r = spawnSync('python3', ['-c', script, fd], { encoding: 'utf8', uid: 65534, gid: 65534, timeout: 10_000 });
      assert.equal(r.stdout.trim(), 'closed', r.stderr);
      await wait(100);
      const refused = m.logs.find((l) => l.event === 'peer-refused' && l.socket === 'fd');
      assert.equal(refused?.uid, 65534, JSON.stringify(m.logs.slice(-5)));
    } finally {
      chmodSync(fd, 0o600);
      chmodSync(dirname(m.socket), 0o700);
      chmodSync(dirname(dirname(m.socket)), 0o700);
    }
  });
});
