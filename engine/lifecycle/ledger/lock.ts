import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';

/** How long an append waits for another process's lock before giving up. */
const WAIT_MS = 10_000;
const POLL_MS = 5;

/**
 * Runs `body` holding an exclusive lock file created with O_EXCL (`wx`) holding our pid. A lock
 * whose process is gone (a crash mid-append) is stale and removed; a live one is waited for.
 * Returns the lock diagnostic instead of running `body` when the wait times out.
 */
export function withLock<T>(lockFile: string, body: () => T, waitMs = WAIT_MS): T | Diagnostic {
  const deadline = Date.now() + waitMs;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(lockFile, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      try {
        return body();
      } finally {
        unlinkSync(lockFile);
      }
    }
    const holder = lockHolder(lockFile);
    if (holder !== undefined && !alive(holder)) {
      removeStale(lockFile, holder);
      continue;
    }
    if (Date.now() > deadline) return diagnose('ledgerLocked', { file: lockFile }, String(holder ?? 'unknown'));
    Atomics.wait(sleeper, 0, 0, POLL_MS);
  }
}

function lockHolder(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    // The holder released it between our open and our read, or has not written its pid yet.
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes a stale lock only if it still names the dead holder (another process may have replaced it). */
function removeStale(lockFile: string, pid: number): void {
  if (lockHolder(lockFile) !== pid) return;
  try {
    unlinkSync(lockFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
