import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { verifyEngine } from '../../engine/verify/index.js';
import { gitHead } from '../../engine/verify/checkout-version.js';
import { captureIo } from '../support/io.js';
import { REPO, checkout, embeddedRegistry, removeCheckouts, scratchDir } from './checkout.js';

const PIN = 'e00930c5489053f26d86b179cee0d087f846acbb';
const OTHER = '94602c9c2b7cbdb8efd5c52802dac6a1c180089e';

describe("verify: the checkout's own version and commit", function () {
  after(removeCheckouts);

  it('reads the commit from .git: a branch ref, packed refs, a detached head, or a gitdir file', function () {
    const root = scratchDir();
    mkdirSync(join(root, '.git/refs/heads'), { recursive: true });
    writeFileSync(join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, '.git/refs/heads/main'), `${PIN}\n`);
    assert.equal(gitHead(root), PIN);
    rmSync(join(root, '.git/refs/heads/main'));
    writeFileSync(join(root, '.git/packed-refs'), `# pack-refs with: peeled fully-peeled sorted\n${OTHER} refs/heads/main\n`);
    assert.equal(gitHead(root), OTHER);
    writeFileSync(join(root, '.git/HEAD'), `${PIN}\n`);
    assert.equal(gitHead(root), PIN);
    const sub = scratchDir();
    writeFileSync(join(sub, '.git'), `gitdir: ${join(root, '.git')}\n`);
    assert.equal(gitHead(sub), PIN);
    assert.equal(gitHead(scratchDir()), undefined);
  });

  it('a git checkout without the generated version file: the release tag on HEAD gives the version', async function () {
    const dir = checkout('vllm-0.31.0');
    rmSync(join(dir, 'vllm/_version.py'));
    const vllmPin = 'db9527a46873454610df6dbedf79a36d6bf1a7f6';
    const tagObject = '1111111111111111111111111111111111111111';
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git/HEAD'), `${vllmPin}\n`);
    writeFileSync(join(dir, '.git/packed-refs'), `# pack-refs with: peeled fully-peeled sorted\n${OTHER} refs/tags/v0.30.0\n${tagObject} refs/tags/v0.31.0\n^${vllmPin}\n`);
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'vllm', source: dir, threads: 0 });
    assert.equal(report.version?.version, '0.31.0');
    assert.equal(report.version?.versionFrom, '.git refs/tags/v0.31.0');
    assert.equal(report.version?.commit, vllmPin);
    assert.equal(report.version?.commitMatches, true);
    assert.deepEqual(report.diagnostics, []);
    // a loose annotated tag: the ref names a tag object, which names the commit
    rmSync(join(dir, '.git/packed-refs'));
    const body = `object ${vllmPin}\ntype commit\ntag v0.31.0\ntagger vLLM <release@vllm.ai> 1759622400 +0000\n\nv0.31.0\n`;
    const object = Buffer.concat([Buffer.from(`tag ${Buffer.byteLength(body)}\0`), Buffer.from(body)]);
    const sha = createHash('sha1').update(object).digest('hex');
    mkdirSync(join(dir, '.git/objects', sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, '.git/objects', sha.slice(0, 2), sha.slice(2)), deflateSync(object));
    mkdirSync(join(dir, '.git/refs/tags'), { recursive: true });
    writeFileSync(join(dir, '.git/refs/tags/v0.31.0'), `${sha}\n`);
    const loose = await verifyEngine({ registry: embeddedRegistry(), engine: 'vllm', source: dir, threads: 0 });
    assert.equal(loose.version?.version, '0.31.0');
    assert.equal(loose.version?.versionFrom, '.git refs/tags/v0.31.0');
  });

  it('a pre-release tag on HEAD is read as that version (not the pin), and a local build tag still matches the pin under PEP 440', async function () {
    const dir = checkout('vllm-0.31.0');
    rmSync(join(dir, 'vllm/_version.py'));
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git/HEAD'), `${OTHER}\n`);
    writeFileSync(join(dir, '.git/packed-refs'), `${OTHER} refs/tags/v0.31.0rc1\n`);
    const rc = await verifyEngine({ registry: embeddedRegistry(), engine: 'vllm', source: dir, threads: 0 });
    assert.equal(rc.version?.version, '0.31.0rc1');
    assert.equal(rc.version?.versionFrom, '.git refs/tags/v0.31.0rc1');
    assert.equal(rc.version?.versionMatches, false, 'a release candidate is not the 0.31.0 release');
    for (const [tag, matches] of [['v0.31.0+cu130', true], ['0.31.0.0', true], ['v0.31.0.post1', false]] as const) {
      writeFileSync(join(dir, '.git/packed-refs'), `${OTHER} refs/tags/${tag}\n`);
      const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'vllm', source: dir, threads: 0 });
      assert.equal(report.version?.versionMatches, matches, tag);
    }
  });

  it('a checkout at another commit: OKV6012, the checks still run', async function () {
    const dir = checkout('sglang-0.5.21');
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git/HEAD'), `${OTHER}\n`);
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.deepEqual(report.diagnostics.map((d) => d.code), ['OKV6012']);
    assert.equal(report.version?.commitMatches, false);
    assert.equal(report.verdict, 'ok');
  });

  it("SGLang's version module: the placeholder in its except fallbacks is not a version (unknown, OKV6013)", async function () {
    // a source checkout that was never built: no generated _version.py, a dynamic pyproject version
    const dir = checkout('sglang-0.5.21');
    rmSync(join(dir, 'python/sglang/_version.py'));
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.equal(report.version?.version, undefined, 'not 0.0.0.dev0');
    assert.deepEqual(report.diagnostics.map((d) => d.code), ['OKV6013']);
    // an unconditional literal still counts
    writeFileSync(join(dir, 'python/sglang/version.py'), '__version__ = "0.5.21"\n');
    assert.equal((await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 })).version?.versionFrom, 'python/sglang/version.py');
  });

  it('a release tag on the checked-out commit wins over the version file; then dist metadata; then a static pyproject version', async function () {
    const dir = checkout('sglang-0.5.21');
    writeFileSync(join(dir, 'python/sglang/_version.py'), '__version__ = "0.5.20"\n');
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git/HEAD'), `${PIN}\n`);
    writeFileSync(join(dir, '.git/packed-refs'), `# pack-refs with: peeled fully-peeled sorted\n${OTHER} refs/tags/v0.5.20\n${PIN} refs/tags/v0.5.21\n`);
    const tagged = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.equal(tagged.version?.version, '0.5.21');
    assert.equal(tagged.version?.versionFrom, '.git refs/tags/v0.5.21');
    rmSync(join(dir, '.git'), { recursive: true });
    writeFileSync(join(dir, 'python/PKG-INFO'), 'Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.21+cu130\n');
    const built = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.equal(built.version?.version, '0.5.21+cu130');
    assert.equal(built.version?.versionFrom, 'python/PKG-INFO');
    assert.equal(built.version?.versionMatches, true, 'a local version part is the same release');
    rmSync(join(dir, 'python/PKG-INFO'));
    writeFileSync(join(dir, 'python/pyproject.toml'), '[project]\nname = "sglang"\nversion = "0.5.21"\n');
    const pyproject = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.equal(pyproject.version?.versionFrom, 'python/pyproject.toml');
  });

  it('a checkout that does not say its version: OKV6013, and --record refuses to bind it to a profile (OKV6014)', async function () {
    const dir = checkout('sglang-0.5.21');
    writeFileSync(join(dir, 'python/sglang/version.py'), '__version__ = "dev"\n');
    rmSync(join(dir, 'python/sglang/_version.py'));
    rmSync(join(dir, 'python/pyproject.toml'));
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.deepEqual(report.diagnostics.map((d) => d.code), ['OKV6013']);
    const registryDir = join(scratchDir(), 'contracts');
    cpSync(join(REPO, 'contracts'), registryDir, { recursive: true });
    const io = captureIo(REPO, { USER: 'ci' });
    assert.equal(await runCli(['verify', '--engine', 'sglang', '--source', dir, '--registry', registryDir, '--record'], io), 1);
    assert.match(io.stdout, /OKV6014/);
  });

  it('a file that cannot be read is reported (OKV6010) and skipped', async function () {
    const dir = checkout('sglang-0.5.21');
    symlinkSync('does-not-exist.py', join(dir, 'python/sglang/srt/dangling.py'));
    const report = await verifyEngine({ registry: embeddedRegistry(), engine: 'sglang', source: dir, threads: 0 });
    assert.deepEqual(report.diagnostics.map((d) => `${d.code} ${d.file}`), ['OKV6010 python/sglang/srt/dangling.py']);
    assert.equal(report.verdict, 'ok');
  });
});
