import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIFECYCLE_FIXTURES, cli, codes, digest, ledgerText, removeTemps, tempCopy, writeLedger } from './support.js';
import { armorSignature, parseOpenSshPrivateKey, sealLine, signMessage, signedMessage } from '../../engine/lifecycle/index.js';

const KEYS = join(LIFECYCLE_FIXTURES, '..', 'keys');
const key = (name: string) => join(KEYS, name);
const pub = (name: string) => readFileSync(`${key(name)}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
const PINS = { alpha: { version: '1.2.0', commit: '1'.repeat(40) } };
const same = { before: digest('frozen'), after: digest('frozen') };

/** A registry copy whose allowed_signers trusts the maintainer and QA keys, each for both actor names (so names prove nothing). */
function signedRegistry(extra = ''): string {
  const dir = tempCopy();
  mkdirSync(join(dir, 'evidence'), { recursive: true });
  writeFileSync(join(dir, 'evidence', 'allowed_signers'), `# trusted evidence signers\norbitkv-maintainers,acme-qa ${pub('maintainer')} maintainer\norbitkv-maintainers,acme-qa ${pub('qa')} qa\n${extra}`);
  return dir;
}
let t = 0;
const at = () => `2026-12-01T11:${String(t++ % 60).padStart(2, '0')}:00Z`;
const add = (dir: string, signer: string | undefined, actor: string, type: string, subject: string, data: object, profile?: object) =>
  cli(dir, 'evidence', 'add', type, '--subject', subject, '--actor', actor, '--at', at(), '--data', JSON.stringify(data), ...(profile ? ['--profile', JSON.stringify(profile)] : []), ...(signer ? ['--key', key(signer)] : []));
const recheck = (dir: string, signer: string | undefined, actor = 'orbitkv-maintainers') => add(dir, signer, actor, 'recheck', 'engine.alpha', { findings: 'x', authorizes: 'nothing' });
const lines = (dir: string) => ledgerText(dir).split('\n').filter(Boolean);
const verify = async (dir: string) => {
  const r = await cli(dir, 'evidence', 'verify');
  return { code: r.code, codes: codes(r.err), out: r.out };
};

describe('signed evidence: ed25519 keys in OpenSSH form', () => {
  after(removeTemps);

  it('signs with an OpenSSH private key file; verify checks every signature and counts them', async () => {
    const dir = signedRegistry();
    assert.equal((await recheck(dir, 'maintainer')).code, 0);
    assert.equal((await recheck(dir, 'qa', 'acme-qa')).code, 0);
    const v = await verify(dir);
    assert.equal(v.code, 0, v.codes.join());
    assert.match(v.out, /2 signed by trusted keys, 0 unsigned/);
    assert.ok(lines(dir).every((l) => typeof (JSON.parse(l) as { signature?: string }).signature === 'string'));
  });

  it('refuses unsigned evidence where signers are trusted (OKV4305), a key not listed or not for the actor (OKV4308), an encrypted or missing key (OKV4307)', async () => {
    const dir = signedRegistry();
    const refused = async (run: Promise<{ code: number; err: string }>, code: string) => {
      const r = await run;
      assert.equal(r.code, 1, r.err);
      assert.deepEqual(codes(r.err), [code]);
    };
    await refused(recheck(dir, undefined), 'OKV4305');
    await refused(recheck(dir, 'intruder'), 'OKV4308');
    await refused(recheck(dir, 'maintainer', 'ci-bot'), 'OKV4308');
    await refused(recheck(dir, 'encrypted'), 'OKV4307');
    await refused(recheck(dir, 'no-such-key'), 'OKV4307');
    await refused(recheck(dir, 'maintainer.pub'), 'OKV4307');
  });

  it('a signature is what ssh-keygen -Y verify accepts, for the record as it stands and not for an edited one', function () {
    if (spawnSync('ssh-keygen', ['-?'], { encoding: 'utf8' }).error) this.skip();
    const tmp = mkdtempSync(join(tmpdir(), 'okv-sshsig-'));
    const signer = parseOpenSshPrivateKey(readFileSync(key('maintainer'), 'utf8'));
    const body = { actor: 'orbitkv-maintainers', at: '2026-12-01T11:00:00Z', data: { findings: 'x', authorizes: 'nothing' }, prev: '0'.repeat(64), seq: 1, subject: 'engine.alpha', type: 'recheck' };
    const message = signedMessage(body);
    writeFileSync(join(tmp, 'allowed'), `orbitkv-maintainers ${pub('maintainer')}\n`);
    writeFileSync(join(tmp, 'sig'), armorSignature(signMessage(signer, message)));
    const check = (text: string) => spawnSync('ssh-keygen', ['-Y', 'verify', '-f', join(tmp, 'allowed'), '-I', 'orbitkv-maintainers', '-n', 'evidence-ledger', '-s', join(tmp, 'sig')], { input: text, encoding: 'utf8' }).status;
    assert.equal(check(message), 0);
    assert.notEqual(check(message.replace('"x"', '"y"')), 0);
  });

  it('a re-hashed forgery with a new head fails: unsigned (OKV4305), an old signature over new content (OKV4303), a key not trusted (OKV4302)', async () => {
    const dir = signedRegistry();
    for (let i = 0; i < 3; i++) assert.equal((await recheck(dir, 'maintainer')).code, 0);
    const original = lines(dir).map((l) => JSON.parse(l) as Record<string, unknown>);
    const forge = (edit: (body: Record<string, unknown>, i: number) => Record<string, unknown>) => {
      let prev = '0'.repeat(64);
      const text = original.map((r, i) => {
        const { hash: _h, ...rest } = r;
        const { line, hash } = sealLine(edit({ ...rest, prev }, i));
        prev = hash;
        return `${line}\n`;
      }).join('');
      writeLedger(join(dir, 'evidence', 'ledger.jsonl'), text);
    };
    const changed = (b: Record<string, unknown>, i: number) => (i === 1 ? { ...b, data: { findings: 'forged', authorizes: 'nothing' } } : b);
    forge((b, i) => {
      const { signature: _s, ...unsigned } = changed(b, i);
      return i >= 1 ? unsigned : b;
    });
    assert.deepEqual((await verify(dir)).codes, ['OKV4305']);
    forge(changed);
    assert.deepEqual((await verify(dir)).codes, ['OKV4303']);
    const intruder = parseOpenSshPrivateKey(readFileSync(key('intruder'), 'utf8'));
    forge((b, i) => {
      const c = changed(b, i);
      return i >= 1 ? { ...c, signature: signMessage(intruder, signedMessage(c)) } : c;
    });
    assert.deepEqual((await verify(dir)).codes, ['OKV4302']);
    for (const command of [['status'], ['check', '--no-wheel', '--out', join(dir, 'out')]]) {
      const r = await cli(dir, ...command);
      assert.equal(r.code, 1);
      assert.ok(codes(r.err + r.out).includes('OKV4302'), command[0]);
    }
  });

  it('a signature by a key the signers no longer trust for the actor fails verify (OKV4304)', async () => {
    const dir = signedRegistry();
    assert.equal((await recheck(dir, 'maintainer', 'acme-qa')).code, 0);
    writeFileSync(join(dir, 'evidence', 'allowed_signers'), `orbitkv-maintainers ${pub('maintainer')}\n`);
    assert.deepEqual((await verify(dir)).codes, ['OKV4304']);
  });

  it('the embedded history stays readable unsigned up to its anchor; rewriting it (OKV4306) or an unsigned record past it (OKV4305) fails', async () => {
    const dir = tempCopy();
    for (let i = 0; i < 3; i++) assert.equal((await recheck(dir, undefined)).code, 0);
    const history = lines(dir);
    const last = JSON.parse(history[2]!) as { hash: string };
    const signers = `# evidence-ledger unsigned-history 3 ${last.hash}\n`;
    writeFileSync(join(dir, 'evidence', 'allowed_signers'), `${signers}orbitkv-maintainers,acme-qa ${pub('maintainer')}\n`);
    const v = await verify(dir);
    assert.equal(v.code, 0, v.codes.join());
    assert.match(v.out, /0 signed by trusted keys, 3 unsigned \(history through record 3\)/);
    assert.equal((await recheck(dir, undefined)).code, 1, 'unsigned past the history');
    assert.equal((await recheck(dir, 'maintainer')).code, 0);
    // Rewrite the history (an edit re-hashed through the chain): the anchor no longer matches.
    const records = lines(dir).map((l) => JSON.parse(l) as Record<string, unknown>);
    let prev = '0'.repeat(64);
    const text = records.map((r, i) => {
      const { hash: _h, ...rest } = r;
      const body = { ...rest, prev, ...(i === 0 ? { data: { findings: 'rewritten', authorizes: 'nothing' } } : {}) };
      const { line, hash } = sealLine(body);
      prev = hash;
      return `${line}\n`;
    }).join('');
    writeLedger(join(dir, 'evidence', 'ledger.jsonl'), text);
    assert.deepEqual((await verify(dir)).codes, ['OKV4306']);
  });

  it('independence is decided by keys, not actor names: the author key cannot accept under another name; another key can under any', async () => {
    const dir = signedRegistry();
    assert.equal((await add(dir, 'maintainer', 'orbitkv-maintainers', 'pin.changed', 'engine.alpha', { version: '1.2.0', commit: PINS.alpha.commit })).code, 0);
    const adapter = digest('adapter');
    assert.equal((await add(dir, 'maintainer', 'orbitkv-maintainers', 'gate.result', 'gate.alpha.acceptance', { result: 'pass', hashes: same }, { engines: PINS, adapter })).code, 0);
    const impostor = await add(dir, 'maintainer', 'acme-qa', 'gate.acceptance', 'gate.alpha.acceptance', { verdict: 'accepted' }, { engines: PINS, adapter });
    assert.equal(impostor.code, 1, 'the author key under the QA name');
    assert.deepEqual(codes(impostor.err), ['OKV4009']);
    const other = await add(dir, 'qa', 'orbitkv-maintainers', 'gate.acceptance', 'gate.alpha.acceptance', { verdict: 'accepted' }, { engines: PINS, adapter });
    assert.equal(other.code, 0, other.err);
    const board = JSON.parse((await cli(dir, 'status', '--format', 'json')).out) as { rows: { id: string; state: string }[] };
    assert.equal(board.rows.find((r) => r.id === 'gate.alpha.acceptance')!.state, 'passed');
  });
});
