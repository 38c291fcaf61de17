/**
 * fallocateFile: fallocate(2) on a pool thread. The file grows to cover the range with its blocks
 * allocated (st_blocks), a refusal is the errno's name (not a throw), and arguments out of range
 * throw at once with nothing touched.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fallocateFile } from '../../native/index.js';

describe('native/fallocate: fallocateFile reserves a file range off the JS thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'okv-fallocate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('allocates the range: the file grows to cover it and its blocks are allocated', async () => {
    const path = join(dir, 'grow.dat');
    writeFileSync(path, Buffer.alloc(4096, 1));
    assert.equal(await fallocateFile(path, 4096, 8 << 20), null);
    const st = statSync(path);
    assert.equal(st.size, 4096 + (8 << 20));
    assert.ok(st.blocks * 512 >= 8 << 20, `${st.blocks} blocks of 512 bytes cover the 8 MiB`);
    // Within the file: nothing changes size, and the bytes written before are kept.
    assert.equal(await fallocateFile(path, 0, 4096), null);
    assert.equal(statSync(path).size, 4096 + (8 << 20));
  });

  it('answers a refusal with the errno name: a missing file, a directory, a file it may not write', async () => {
    assert.equal(await fallocateFile(join(dir, 'absent', 'x.dat'), 0, 4096), 'ENOENT');
    assert.equal(await fallocateFile(dir, 0, 4096), 'EISDIR');
    if (process.getuid?.() !== 0) {
      const ro = join(dir, 'ro.dat');
      writeFileSync(ro, '');
      chmodSync(ro, 0o400);
      assert.equal(await fallocateFile(ro, 0, 4096), 'EACCES');
    }
  });

  it('arguments out of range throw at once (TypeError, RangeError), before any file is opened', () => {
    const path = join(dir, 'never.dat');
    assert.throws(() => fallocateFile('', 0, 1), TypeError);
    assert.throws(() => fallocateFile('a\0b', 0, 1), TypeError);
    assert.throws(() => fallocateFile(7 as unknown as string, 0, 1), TypeError);
    assert.throws(() => fallocateFile(path, -1, 1), RangeError);
    assert.throws(() => fallocateFile(path, 0, 0), RangeError);
    assert.throws(() => fallocateFile(path, 0.5, 1), RangeError);
    assert.throws(() => fallocateFile(path, Number.MAX_SAFE_INTEGER, 1), RangeError);
    assert.throws(() => statSync(path), /ENOENT/);
  });

});
