/**
 * A real Manager for a gate cell: `orbitkv serve` spawned as its own process on a temporary
 * socket, with a DRAM tier and (where the cell asks) an SSD tier in a temporary folder, fault
 * injection only when the cell names faults. It can be restarted on the same socket and SSD
 * folder (SIGTERM, or SIGKILL for a crash) and asked for its status as an operator.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { askManager } from '../../runtime/client/index.js';
import { MANAGER_ENV, MANAGER_NODE_FLAGS, type ManagerStatus } from '../../runtime/index.js';

export interface ManagerSpec {
  /** DRAM tier bytes (default 4 MiB). */
  dramBytes?: number;
  /** SSD tier bytes, or 0 for no SSD tier (default 8 MiB). */
  ssdBytes?: number;
  /** Block bytes (default 64 KiB). */
  blockBytes?: number;
  leaseMs?: number;
  /** `--faults` items: fault point → milliseconds. */
  faults?: Record<string, number>;
}

/** How to start `orbitkv serve`: the command and the arguments before `serve`. */
export interface ManagerLauncher {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_BLOCK_BYTES = 64 * 1024;

/** How an engine's registered pages show in a process's mappings. */
export interface PageIdentity {
  path: string | null;
  inode: number | null;
}

/** The CLI this module belongs to, run the way this process runs (tsx for sources, node for dist/). */
export function defaultLauncher(): ManagerLauncher {
  const here = import.meta.url;
  const source = here.endsWith('.ts');
  const main = new URL(`../../cli/main.${source ? 'ts' : 'js'}`, here).pathname;
  // The node flags and environment the `orbitkv` command starts the Manager with (heap-profile.ts).
  return { command: process.execPath, args: [...MANAGER_NODE_FLAGS, ...(source ? ['--import', 'tsx', main] : [main])], env: { ...MANAGER_ENV } };
}

export class ManagerProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  readonly logs: Record<string, unknown>[] = [];
  private stderr = '';
  starts = 0;

  constructor(readonly socket: string, readonly ssdDir: string | null, readonly spec: ManagerSpec, readonly registryDir: string, private readonly launcher: ManagerLauncher, private readonly startTimeoutMs = 30_000) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get blockBytes(): number {
    return this.spec.blockBytes ?? DEFAULT_BLOCK_BYTES;
  }

  /** Starts it; resolves once it logs `serving`, rejects with its stderr if it exits first. */
  async start(): Promise<void> {
    const s = this.spec;
    const flags = ['serve', '--socket', this.socket, '--registry', this.registryDir, '--block-size', String(this.blockBytes), '--dram', String(s.dramBytes ?? 4 * 1024 * 1024)];
    if (this.ssdDir) flags.push('--ssd', this.ssdDir, '--ssd-size', String(s.ssdBytes ?? 8 * 1024 * 1024));
    if (s.leaseMs !== undefined) flags.push('--lease-ms', String(s.leaseMs));
    const faults = Object.entries(s.faults ?? {});
    if (faults.length > 0) flags.push('--faults', faults.map(([k, v]) => `${k}=${v}`).join(','));
    const child = spawn(this.launcher.command, [...this.launcher.args, ...flags], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...this.launcher.env } });
    this.child = child;
    this.starts++;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      let partial = '';
      let ready = false;
      const timer = setTimeout(() => reject(new Error(`the Manager did not start within ${this.startTimeoutMs} ms: ${this.stderr.slice(-2000)}`)), this.startTimeoutMs);
      child.stderr!.on('data', (d: Buffer) => {
        const text = d.toString('utf8');
        this.stderr = (this.stderr + text).slice(-64 * 1024);
        const lines = (partial + text).split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          if (!line.startsWith('{')) continue;
          let entry: Record<string, unknown>;
          try {
            entry = JSON.parse(line) as Record<string, unknown>;
          } catch {
            continue;
          }
          if (this.logs.length < 10_000) this.logs.push(entry);
          if (entry['event'] === 'serving' && !ready) {
            ready = true;
            clearTimeout(timer);
            resolve();
          }
        }
      });
      void this.exited.then((code) => {
        clearTimeout(timer);
        if (!ready) reject(new Error(`the Manager exited (${code}) before serving: ${this.stderr.slice(-2000)}`));
      });
    });
  }

  /** Its status, as `orbitkv manager status` reads it. */
  async status(): Promise<ManagerStatus> {
    const r = await askManager(this.socket, 'status', {});
    if ('diagnostic' in r) throw new Error(r.diagnostic.message);
    return r.body as unknown as ManagerStatus;
  }

  /** Whether the Manager process maps an engine's pages (a file by path, or a memfd by inode). */
  maps(pages: PageIdentity): boolean {
    if (!this.child?.pid || (pages.path === null && pages.inode === null)) return false;
    let text: string;
    try {
      text = readFileSync(`/proc/${this.child.pid}/maps`, 'utf8');
    } catch {
      return false;
    }
    for (const line of text.split('\n')) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 6) continue;
      const path = fields.slice(5).join(' ');
      if (pages.path !== null && path === pages.path) return true;
      if (pages.inode !== null && fields[4] === String(pages.inode) && (path.startsWith('/memfd:') || path.startsWith('/dev/shm/'))) return true;
    }
    return false;
  }

  /** Stops it (SIGTERM drains; SIGKILL is a crash) and waits for the exit. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** Stops and starts it again on the same socket and SSD folder. */
  async restart(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    await this.stop(signal);
    await this.start();
  }

  get ssdDataFile(): string | null {
    return this.ssdDir ? join(this.ssdDir, 'blocks.dat') : null;
  }

  /** The last lines it wrote on stderr (for a failing cell's report). */
  tail(): string {
    return this.stderr.slice(-4000);
  }
}
