/**
 * The socket lock: an exclusive flock(2) on `<socket>.lock`, held for the Manager's life. A
 * flock belongs to the open file, not to a pid, so it needs no liveness guess: it is released
 * by the kernel when its holder dies (kill -9 included), and it excludes across PID namespaces
 * (two containers sharing the socket folder see one lock). Node has no flock call, so a child
 * process holds it: util-linux `flock` opens the file, locks it without waiting, then runs
 * `cat` on a pipe from this process. When this process exits, however it exits, the pipe
 * closes, `cat` ends and the lock goes with it. The child runs in its own process group so a
 * terminal's Ctrl-C (sent to the Manager's group) does not drop the lock while the Manager drains.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';

/** The exit status `flock --nonblock` gives when another process holds the lock. */
const HELD = 75;

export type LockOutcome = { held: true; release(): Promise<void> } | { held: false; holder: string } | { held: false; unavailable: string };

export const lockPath = (socketPath: string): string => `${socketPath}.lock`;

/** Takes the lock beside the socket, or says who holds it (the pid the holder wrote in the file). */
export function lockSocket(socketPath: string): Promise<LockOutcome> {
  const file = lockPath(socketPath);
  // Created 0600 before flock opens it, so the lock file is never wider than the socket.
  closeSync(openSync(file, 'a', 0o600));
  return new Promise((resolve) => {
    const child = spawn('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', String(HELD), file, 'sh', '-c', 'echo locked; exec cat >/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let settled = false;
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString('utf8');
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      resolve({ held: false, unavailable: error.code === 'ENOENT' ? 'the flock command (util-linux) is not installed' : `${error.code ?? ''} ${error.message}`.trim() });
    });
    child.once('exit', (code) => {
      if (settled) return;
      settled = true;
      if (code === HELD) {
        let holder = 'unknown';
        try {
          holder = readFileSync(file, 'utf8').trim() || 'unknown';
        } catch {
          // the holder has not written its pid yet
        }
        resolve({ held: false, holder });
      } else resolve({ held: false, unavailable: `flock exited ${code}: ${err.trim()}` });
    });
    child.stdout.once('data', () => {
      if (settled) return;
      settled = true;
      // Informational only (who to stop); the lock itself is the flock.
      writeFileSync(file, `${process.pid}\n`);
      // The pipes must not keep the event loop alive once the Manager stops.
      child.unref();
      (child.stdout as unknown as { unref?: () => void }).unref?.();
      (child.stderr as unknown as { unref?: () => void }).unref?.();
      (child.stdin as unknown as { unref?: () => void }).unref?.();
      const exited = new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) done();
        else child.once('exit', () => done());
      });
      let released: Promise<void> | null = null;
      resolve({
        held: true,
        // Resolves once the holder is gone, so a Manager started next finds the lock free.
        release: () =>
          (released ??= (() => {
            try {
              writeFileSync(file, '');
            } catch {
              // the folder is gone
            }
            // Referenced again: the wait for the holder's exit must keep the process alive.
            child.ref();
            child.stdin.end();
            return exited;
          })()),
      });
    });
  });
}
