import assert from 'node:assert/strict';
import { runCli, listCommands } from '../../engine/cli/main.js';
import { captureIo } from '../support/io.js';

describe('cli/main', () => {
  it('lists every command in --help and exits 0', async () => {
    const io = captureIo();
    assert.equal(await runCli(['--help'], io), 0);
    const commands = await listCommands();
    assert.ok(commands.length > 0);
    for (const c of commands) assert.match(io.stdout, new RegExp(`\\b${c.name}\\b`));
  });

  it('exits 2 on no command, printing usage', async () => {
    const io = captureIo();
    assert.equal(await runCli([], io), 2);
    assert.match(io.stdout, /usage: orbitkv/);
  });

  it('exits 2 and names an unknown command', async () => {
    const io = captureIo();
    assert.equal(await runCli(['frobnicate'], io), 2);
    assert.match(io.stderr, /unknown command 'frobnicate'/);
  });

  it('has unique command names', async () => {
    const commands = await listCommands();
    assert.equal(new Set(commands.map((c) => c.name)).size, commands.length);
  });

  const withRegistry: string[][] = [
    ['status'], ['check'], ['validate'], ['report'], ['generate', '--dry-run'], ['explain', 'hook.any'], ['can-remove', 'hook.any'],
    ['evidence', 'verify'], ['evidence', 'add', 'recheck', '--subject', 'engine.any'], ['fmt', '--check'], ['new', 'hook', 'hook.any.x', '--engine', 'any'],
    ['package-check', 'missing.whl'], ['verify', '--engine', 'any', '--source', '.'],
  ];
  for (const argv of withRegistry) {
    it(`${argv.slice(0, 2).join(' ')} --registry on a missing folder: usage error OKV1001, exit 2`, async () => {
      const io = captureIo();
      assert.equal(await runCli([...argv, '--registry', '/nonexistent/okv-typo'], io), 2, io.stdout + io.stderr);
      assert.match(io.stderr, /error OKV1001/);
      assert.doesNotMatch(io.stdout, /chain intact|records/);
    });
  }
});
