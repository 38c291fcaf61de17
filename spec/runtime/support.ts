/**
 * Real Manager processes for the runtime specs: `orbitkv serve` spawned with tsx, its JSON
 * log lines collected, plus pages in sealed memfds and profiles the embedded
 * registry accepts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MANAGER_ENV, MANAGER_NODE_FLAGS, ManagerClient, OPCODE } from '../../engine/runtime/index.js';
import { createMemfd, mapShared, unmapShared } from '../../native/index.js';

export const REPO = join(import.meta.dirname, '..', '..');
const MAIN = join(REPO, 'engine', 'cli', 'main.ts');

const cleanups: (() => void)[] = [];
after(() => {
  for (const c of cleanups.splice(0)) c();
});

export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `okv-rt-${name}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface ManagerProcess {
  child: ChildProcess;
  socket: string;
  logs: Record<string, unknown>[];
  stderr: () => string;
  exited: Promise<number | null>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  kill9(): Promise<void>;
}

/** The vLLM profile the embedded registry accepts (its pin, no rejected feature). */
export function acceptedProfile(): { engine: string; version: string; env: Record<string, string>; config: Record<string, unknown> } {
  const dir = join(REPO, 'spec', 'vectors', 'rejections');
  for (const file of readdirSync(dir).filter((f) => f.startsWith('vllm.')).sort()) {
    const cases = (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { cases: { profile: never; expected: { accepted: boolean } }[] }).cases;
    const ok = cases.find((c) => c.expected.accepted);
    if (ok) return ok.profile;
  }
  throw new Error('no vLLM vector is accepted');
}

/** Starts `orbitkv serve` with the flags; resolves once it logs `serving` (or rejects with its stderr). */
export function startManager(flags: string[], options: { socketDir?: string | undefined; env?: NodeJS.ProcessEnv; noSocket?: boolean; nodeFlags?: readonly string[] } = {}): Promise<ManagerProcess> {
  const dir = options.socketDir ?? join(tempDir('sock'), 'run');
  // noSocket: serve picks its default (the registry's rule); the socket is read from its `serving` log.
  let socket = flags.includes('--socket') ? flags[flags.indexOf('--socket') + 1]! : join(dir, 'm.sock');
  // Node's own flags and environment as the `orbitkv` command gives them, unless the spec says otherwise.
  const args = [...(options.nodeFlags ?? MANAGER_NODE_FLAGS), '--import', 'tsx', MAIN, 'serve', ...(flags.includes('--socket') || options.noSocket ? [] : ['--socket', socket]), ...flags];
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...(options.nodeFlags ? {} : MANAGER_ENV), ...options.env } });
  let err = '';
  const logs: Record<string, unknown>[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    let partial = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      const lines = (partial + d.toString('utf8')).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.event === 'serving') {
          if (options.noSocket) socket = String(entry.socket);
          resolve(handle());
        }
      }
    });
    void exited.then((code) => reject(Object.assign(new Error(`serve exited ${code}: ${err}`), { code, stderr: err })));
    const handle = (): ManagerProcess => ({
      child,
      socket,
      logs,
      stderr: () => err,
      exited,
      stop: () => {
        child.kill('SIGTERM');
        return exited;
      },
      kill9: async () => {
        child.kill('SIGKILL');
        await exited;
      },
    });
  });
}

/** Registered pages for a spec: a sealed memfd (native createMemfd) mapped here, one layer unless told. */
export interface SpecPages {
  fd: number;
  pages: number;
  pageBytes: number;
  layers: number;
  write(page: number, bytes: Buffer, layer?: number): void;
  read(page: number, layer?: number): Buffer;
  flag(page: number, layer?: number): number;
  setFlag(page: number, value: number, layer?: number): void;
}

/** Pages in a sealed memfd, `layers` x `pages` pages of `pageBytes` then one flag byte per page per layer. */
export function pageFile(pages: number, pageBytes: number, layers = 1): SpecPages {
  const size = layers * pages * (pageBytes + 1);
  const fd = createMemfd('okv-spec-pages', size);
  const view = Buffer.from(mapShared(fd, size));
  cleanups.push(() => {
    unmapShared(view.buffer as ArrayBuffer);
    closeSync(fd);
  });
  const at = (page: number, layer: number) => (layer * pages + page) * pageBytes;
  const flagAt = (page: number, layer: number) => layers * pages * pageBytes + layer * pages + page;
  return {
    fd,
    pages,
    pageBytes,
    layers,
    write: (page, bytes, layer = 0) => void bytes.copy(view, at(page, layer), 0, pageBytes),
    read: (page, layer = 0) => Buffer.from(view.subarray(at(page, layer), at(page, layer) + pageBytes)),
    flag: (page, layer = 0) => view[flagAt(page, layer)]!,
    setFlag: (page, value, layer = 0) => void (view[flagAt(page, layer)] = value),
  };
}

/** A block's recognisable bytes: the label repeated. */
export function blockBytes(label: string, size: number): Buffer {
  return Buffer.alloc(size, `${label}|`);
}

export const NS = { model: 'Qwen/Qwen3-8B', layout: 'vllm:flash-attn:bf16', blockSize: 16 };

/** A connected, accepted client with pages registered (the memfd deposited on the fd socket). */
export async function engineClient(m: ManagerProcess, pages: SpecPages, count: number, size: number): Promise<ManagerClient> {
  const c = await ManagerClient.connect(m.socket);
  const w = await c.hello(acceptedProfile(), { client: 'spec' });
  if (w.opcode !== OPCODE.welcome) throw new Error(`handshake refused: ${JSON.stringify(w.body)}`);
  const r = await c.registerMemfd(pages.fd, { pageBytes: size / pages.layers, pages: count, layers: pages.layers });
  if (r.opcode !== OPCODE.pagesRegistered) throw new Error(`pages refused: ${JSON.stringify(r.body)}`);
  return c;
}

export const lookupBody = (hashes: string[], extra: Partial<{ request: string; rank: number; worldSize: number; deadlineMs: number }> = {}) => ({
  namespace: NS,
  hashes,
  request: extra.request ?? `req-${Math.random().toString(36).slice(2)}`,
  rank: extra.rank ?? 0,
  worldSize: extra.worldSize ?? 1,
  deadlineMs: extra.deadlineMs ?? 2000,
});
