/** The only channel commands print through; specs pass a capturing one. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Working directory the command resolves relative paths against. */
  cwd: string;
  /** Environment the command reads (never `process.env` directly, so specs stay hermetic). */
  env: NodeJS.ProcessEnv;
  /** True when stdout is a terminal (colours, code frames with markers). */
  isTty: boolean;
}

/** Exit codes shared by every command. */
export const EXIT = {
  ok: 0,
  /** The check failed: diagnostics with errors, drift, a blocked removal. */
  failed: 1,
  /** The command line itself was wrong. */
  usage: 2,
  /** A preflight-style verdict: the profile is rejected. */
  rejected: 3,
} as const;

/**
 * One CLI command, exported as `command` from `engine/cli/commands/<name>.ts`.
 * Keep heavy imports inside `run`: every command module is imported to list them.
 */
export interface CommandModule {
  name: string;
  /** One line for `orbitkv --help`. */
  summary: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

export function processIo(): CliIo {
  // `orbitkv status | head` closes the pipe early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    isTty: Boolean(process.stdout.isTTY),
  };
}

/** A usage error: the message says what was wrong and `hint` what to type instead. */
export class UsageError extends Error {
  constructor(message: string, readonly hint?: string) {
    super(message);
    this.name = 'UsageError';
  }
}
