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
});
