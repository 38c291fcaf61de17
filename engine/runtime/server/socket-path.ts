/**
 * How the Manager keeps its socket private: a socket of mode 0600 in a folder of mode 0700
 * owned by this user (where it is: runtime/endpoint).
 */
import { existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';

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

/** Removes a leftover socket file (a Manager killed with -9 leaves its socket behind). */
export function removeStale(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
