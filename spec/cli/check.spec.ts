import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { captureIo } from '../support/io.js';

describe('cli/check (the main job)', function () {
  this.timeout(120_000);
  let work: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'okv-check-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('validates the embedded registry, generates both adapters with wheels, and prints the board', async () => {
    const out = join(work, 'adapters');
    const io = captureIo(process.cwd(), { ORBITKV_CACHE_DIR: join(work, 'cache') });
    const code = await runCli(['check', '--out', out, '--format', 'json'], io);
    assert.equal(code, 0, io.stderr);
    const result = JSON.parse(io.stdout);
    assert.equal(result.validate.counts.errors, 0);
    assert.ok(result.validate.counts.contracts > 80, 'the whole embedded registry was checked');
    const wheels = (result.generate.files as string[]).filter((f) => f.endsWith('.whl'));
    assert.equal(wheels.length, 2);
    for (const w of wheels) assert.ok(existsSync(join(out, w)), w);
    const rows = JSON.stringify(result.status);
    // The seed's reading: kept hooks stay kept; the V2 runner stays rejected.
    assert.match(rows, /hook\.sglang\.prefill-add-one-req/);
    assert.match(rows, /rejection\.vllm\.v2-model-runner/);
  });

  it('stops before generating when the registry has errors, exit 1', async () => {
    const reg = join(work, 'broken');
    cpSync('contracts', reg, { recursive: true });
    const hook = join(reg, 'hooks', 'hook.sglang.prefill-add-one-req.yaml');
    writeFileSync(hook, readFileSync(hook, 'utf8').replace('hookType: AROUND', 'hookType: AROUNDD'));
    const out = join(work, 'never');
    const io = captureIo(process.cwd(), { ORBITKV_CACHE_DIR: join(work, 'cache') });
    const code = await runCli(['check', '--registry', reg, '--out', out], io);
    assert.equal(code, 1);
    assert.match(io.stdout, /OKV2006/);
    assert.match(io.stdout, /hook\.sglang\.prefill-add-one-req\.yaml:\d+:\d+/);
    assert.equal(existsSync(out), false, 'nothing generated');
  });

  it('refuses to generate from a contract `orbitkv new` left unfilled, though validate passes with warnings', async () => {
    const reg = join(work, 'scaffolded');
    cpSync('contracts', reg, { recursive: true });
    assert.equal(await runCli(['new', 'hook', 'hook.sglang.unfinished', '--engine', 'sglang', '--registry', reg], captureIo()), 0);
    const validate = captureIo();
    assert.equal(await runCli(['validate', '--registry', reg], validate), 0);
    assert.match(validate.stdout, /OKV3029/);
    const out = join(work, 'never-scaffolded');
    const io = captureIo(process.cwd(), { ORBITKV_CACHE_DIR: join(work, 'cache') });
    assert.equal(await runCli(['check', '--registry', reg, '--out', out], io), 1);
    assert.match(io.stdout, /unfilled placeholder/);
    assert.equal(existsSync(out), false, 'nothing generated');
    const gen = captureIo();
    assert.equal(await runCli(['generate', '--registry', reg, '--out', out], gen), 1);
    assert.match(gen.stderr, /OKV3029/);
    assert.equal(existsSync(out), false, 'nothing generated');
  });

  it('exits 2 on an unknown option', async () => {
    const io = captureIo();
    assert.equal(await runCli(['check', '--bogus'], io), 2);
  });
});
