import { spawnSync } from 'node:child_process';
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';

/** How long an append waits for another process's lock before giving up. */
const WAIT_MS = 10_000;
/** The exit status asked of `flock` when the wait ran out with the lock still held by another. */
const CONFLICT = 75;

/** What a holder of the lock may ask while it works. */
export interface Lease {
  /**
   * The lock file is still the file this holder locked: check before writing. The tool never
   * removes the lock file, so this only turns false when something else removed or replaced it
   * (then a second appender could lock the new file).
   */
  held(): boolean;
}

/**
 * Runs `body` holding an exclusive flock(2) on `lockFile`. The take is one kernel call, so two
 * appenders never both hold it (no check-then-act: nothing is judged stale and taken over). A
 * flock belongs to the open file, not to a pid: the kernel releases it when its holder exits,
 * kill -9 included, and it excludes across PID namespaces; a lock file's content (empty, garbage,
 * a live or dead pid) never blocks. Node has no flock call, so util-linux `flock` takes it on this
 * process's open descriptor (passed as its fd 3), waiting at most `waitMs`, and exits: the lock
 * stays with the open file, which this process holds until the body returns. The file is never
 * removed (removing a locked file lets a second appender lock a new one); it names its holder for
 * the diagnostic while held and is emptied on release. Returns the lock diagnostic when the wait
 * runs out (OKV4108) or no lock can be taken (OKV4120).
 */
export function withLock<T>(lockFile: string, body: (lease: Lease) => T, waitMs = WAIT_MS): T | Diagnostic {
  const deadline = Date.now() + waitMs;
  for (;;) {
    let fd: number;
    try {
      fd = openSync(lockFile, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
    } catch (error) {
      return diagnose('ledgerLockUnavailable', { file: lockFile }, `${(error as NodeJS.ErrnoException).code ?? 'error'} opening the lock file`);
    }
    try {
      if (!fstatSync(fd).isFile()) return diagnose('ledgerLockUnavailable', { file: lockFile }, 'the lock file is not a regular file');
      const taken = takeFlock(fd, Math.max(0, deadline - Date.now()));
      if (taken === 'held') return diagnose('ledgerLocked', { file: lockFile }, holderOf(fd));
      if (taken !== 'taken') return diagnose('ledgerLockUnavailable', { file: lockFile }, taken);
      // Locked, but only the file the path still names counts: one removed or replaced before our
      // lock landed is a lock nobody else will look at. Take the lock on the file now there.
      if (!namesFile(lockFile, fd)) continue;
      ftruncateSync(fd, 0);
      writeSync(fd, `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`, 0);
      const lease: Lease = { held: () => namesFile(lockFile, fd) };
      try {
        return body(lease);
      } finally {
        // Still locked here: the next holder never reads this holder's name.
        if (lease.held()) ftruncateSync(fd, 0);
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** Locks the open file `fd` (exclusive, waiting at most `waitMs`): 'taken', 'held' (by another, still at the deadline), or why it cannot be. */
function takeFlock(fd: number, waitMs: number): 'taken' | 'held' | string {
  const r = spawnSync('flock', ['--exclusive', '--timeout', (waitMs / 1000).toFixed(3), '--conflict-exit-code', String(CONFLICT), '3'], { stdio: ['ignore', 'ignore', 'pipe', fd], encoding: 'utf8' });
  if (r.error) return (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the flock command (util-linux) is not installed' : `flock: ${r.error.message}`;
  if (r.status === 0) return 'taken';
  if (r.status === CONFLICT) return 'held';
  return `flock exited ${r.status ?? r.signal}: ${r.stderr.trim()}`;
}

/** The path still names the open file `fd` (same device and inode). */
function namesFile(path: string, fd: number): boolean {
  try {
    const a = statSync(path);
    const b = fstatSync(fd);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}

/** The pid the holder wrote in the lock file (informational: the lock is the flock), or 'unknown'. Reads its first bytes only. */
function holderOf(fd: number): string {
  try {
    const bytes = Buffer.alloc(512);
    const n = readSync(fd, bytes, 0, bytes.length, 0);
    const v = JSON.parse(bytes.subarray(0, n).toString('utf8')) as { pid?: unknown; host?: unknown };
    if (Number.isSafeInteger(v.pid)) return typeof v.host === 'string' && v.host !== hostname() ? `${String(v.pid)} on ${v.host}` : String(v.pid);
  } catch {
    // Empty (being written, or released) or not ours.
  }
  return 'unknown';
}
