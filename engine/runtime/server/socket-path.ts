/**
 * Where the Manager listens and how it keeps that place private: a socket of mode 0600 in a
 * folder of mode 0700 owned by this user (defaults: $XDG_RUNTIME_DIR/orbitkv/manager.sock, or
 * /tmp/orbitkv-$UID/manager.sock). A lock file beside the socket names the serving pid, so a
 * second Manager refuses instead of stealing the socket from a live one.
 */
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';

/** sun_path holds 108 bytes on Linux, including the terminating NUL. */
export const SOCKET_PATH_LIMIT = 107;

export function defaultSocketPath(env: NodeJS.ProcessEnv): string {
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime) return join(runtime, 'orbitkv', 'manager.sock');
  return join('/tmp', `orbitkv-${process.getuid?.() ?? 'user'}`, 'manager.sock');
}

export type FolderProblem = { folder: string; detail: string };

/** Creates the socket's folder 0700, or checks an existing one is this user's and private. */
export function prepareSocketFolder(socketPath: string): FolderProblem | null {
  const folder = dirname(socketPath);
  if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 });
  const st = lstatSync(folder);
  if (!st.isDirectory()) return { folder, detail: 'not a directory' };
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return { folder, detail: `owned by uid ${st.uid}` };
  if ((st.mode & 0o077) !== 0) return { folder, detail: `mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}` };
  return null;
}

/** Whether something accepts connections on the socket now. */
export function socketAnswers(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Takes the socket for this process: refuses (with the holder's pid) when a live Manager holds
 * the lock or answers on the socket; otherwise clears a dead one's leftovers.
 */
export async function claimSocket(path: string): Promise<{ holder: string } | { release: () => void }> {
  const lock = `${path}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt === 1) throw error;
      const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) return { holder: String(pid) };
      unlinkSync(lock);
    }
  }
  if (existsSync(path)) {
    if (await socketAnswers(path)) {
      unlinkSync(lock);
      return { holder: 'unknown' };
    }
    unlinkSync(path);
  }
  return {
    release: () => {
      for (const p of [path, lock]) {
        try {
          const owner = p === lock ? Number.parseInt(readFileSync(lock, 'utf8'), 10) : process.pid;
          if (owner === process.pid) unlinkSync(p);
        } catch {
          // already gone
        }
      }
    },
  };
}
