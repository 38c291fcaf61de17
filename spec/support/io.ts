import type { CliIo } from '../../engine/cli/io.js';

/** A CliIo that records what a command printed. */
export function captureIo(cwd = process.cwd(), env: NodeJS.ProcessEnv = {}): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    cwd,
    env,
    isTty: false,
    out(t: string) { io.stdout += t; },
    err(t: string) { io.stderr += t; },
  };
  return io;
}
