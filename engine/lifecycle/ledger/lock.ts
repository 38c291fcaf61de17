import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readlinkSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';

/** How long an append waits for another process's lock before giving up. */
const WAIT_MS = 10_000;
const POLL_MS = 5;
/**
 * A lock not renewed for this long is stale, whoever holds it. A holder renews it as it works
 * (`Lease.renew`), so only a holder that is gone, stuck or never wrote a lock of ours gets here;
 * it is shorter than the wait, so a stale lock never makes an append time out.
 */
export const LEASE_MS = 4_000;
/** A lock file without our content this old is stale (a holder writes its content right after creating it). */
const UNWRITTEN_MS = 1_000;

/** What a holder of the lock may ask while it works. */
export interface Lease {
  /** Moves the lease on (the lock's mtime): call it at least every few seconds of work. */
  renew(): void;
  /** The lock file is still ours (not taken over as stale): check before writing. */
  held(): boolean;
}

interface LockBody {
  pid: number;
  host: string;
  /** The pid namespace, so a pid is only looked up where it means the same process. */
  ns: string;
  token: string;
}

let ownNamespace: string | undefined;
function pidNamespace(): string {
  if (ownNamespace === undefined) {
    try {
      ownNamespace = readlinkSync('/proc/self/ns/pid');
    } catch {
      ownNamespace = '';
    }
  }
  return ownNamespace;
}

/**
 * Runs `body` holding an exclusive lock file created with O_EXCL (`wx`). The file names its
 * holder (pid, host, pid namespace, a random token) and its mtime is a lease the holder renews.
 * A lock is stale, and removed, when its lease ran out, when it is empty or garbage past a short
 * grace, or when its holder is a dead process of this host and pid namespace. Recovery never
 * rests on a pid alone: a pid from another namespace, or one reused by a live process, only
 * delays it until the lease runs out. Returns the lock diagnostic when the wait times out.
 */
export function withLock<T>(lockFile: string, body: (lease: Lease) => T, waitMs = WAIT_MS): T | Diagnostic {
  const deadline = Date.now() + waitMs;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const mine: LockBody = { pid: process.pid, host: hostname(), ns: pidNamespace(), token: randomBytes(16).toString('hex') };
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(lockFile, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${JSON.stringify(mine)}\n`);
      } finally {
        closeSync(fd);
      }
      const lease: Lease = {
        renew: () => {
          const now = new Date();
          try {
            utimesSync(lockFile, now, now);
          } catch {
            // Gone: `held` says so before anything is written.
          }
        },
        held: () => holderOf(lockFile)?.token === mine.token,
      };
      try {
        return body(lease);
      } finally {
        if (lease.held()) unlinkSync(lockFile);
      }
    }
    const seen = inspect(lockFile);
    if (seen && seen.stale) {
      removeStale(lockFile, seen.text);
      continue;
    }
    if (Date.now() > deadline) return diagnose('ledgerLocked', { file: lockFile }, seen?.holder?.pid !== undefined ? String(seen.holder.pid) : 'unknown');
    Atomics.wait(sleeper, 0, 0, POLL_MS);
  }
}

function parseBody(text: string): LockBody | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockBody>;
    return v && typeof v === 'object' && Number.isSafeInteger(v.pid) && typeof v.host === 'string' && typeof v.ns === 'string' && typeof v.token === 'string' ? (v as LockBody) : undefined;
  } catch {
    return undefined;
  }
}

function holderOf(lockFile: string): LockBody | undefined {
  try {
    return parseBody(readFileSync(lockFile, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The lock as it stands: its text, its holder (when it names one) and whether it is stale. Undefined when it is gone. */
function inspect(lockFile: string): { text: string; holder?: LockBody; stale: boolean } | undefined {
  let text: string;
  let age: number;
  try {
    const fd = openSync(lockFile, 'r');
    try {
      age = Date.now() - fstatSync(fd).mtimeMs;
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined; // Released between our open attempt and this look.
  }
  const holder = parseBody(text);
  if (age > LEASE_MS) return { text, ...(holder ? { holder } : {}), stale: true };
  if (!holder) return { text, stale: age > UNWRITTEN_MS };
  const here = holder.host === hostname() && holder.ns === pidNamespace() && holder.ns !== '';
  return { text, holder, stale: here && !alive(holder.pid) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes a stale lock only if it still holds what was judged stale (another process may have replaced it since). */
function removeStale(lockFile: string, judged: string): void {
  try {
    if (readFileSync(lockFile, 'utf8') !== judged) return;
    // An empty lock being written right now would read the same: leave it its grace.
    if (judged === '' && Date.now() - statSync(lockFile).mtimeMs <= UNWRITTEN_MS) return;
    unlinkSync(lockFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
