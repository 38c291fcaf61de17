/**
 * The SGLang conformance driver's runner: TP ranks of the stand-in server
 * (`sglang.srt.entrypoints.standin_rank`) as separate Python processes with the generated
 * package installed, meeting in the stand-in's collectives and reaching a real Manager.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PYTHON } from '../generators/support.js';
import { STANDINS } from './support.js';

export interface RankResult {
  rank: number;
  status: number | null;
  stderr: string;
  log: unknown[][];
  events: unknown[][];
  pages: Record<string, string[][]>;
  collectives: number;
}

export interface Scenario {
  server_args: Record<string, unknown>;
  geometry?: { pages: number; page_size: number; layers: number; page_bytes: number };
  capture_before_plugins?: boolean;
  delay_first_round_s?: number;
  phases: Record<string, unknown>[];
}

/** Runs one scenario on `ranks` ranks (per-rank overrides by index); resolves with each rank's result. */
export function runRanks(site: string, envPrefix: string, socket: string, scenario: Scenario, ranks = 2, perRank: Partial<Scenario>[] = [], env: Record<string, string> = {}): Promise<RankResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'okv-sgl-ranks-'));
  const rendezvous = join(dir, 'tp.sock');
  return Promise.all(
    Array.from({ length: ranks }, (_, rank) => {
      const file = join(dir, `rank${rank}.json`);
      writeFileSync(file, JSON.stringify({ ...scenario, ...(perRank[rank] ?? {}) }));
      const child = spawn(PYTHON, ['-m', 'sglang.srt.entrypoints.standin_rank', file], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          PYTHONDONTWRITEBYTECODE: '1',
          PYTHONPATH: [join(STANDINS, 'sglang'), site].join(':'),
          STANDIN_TP_SIZE: String(ranks),
          STANDIN_TP_RANK: String(rank),
          STANDIN_TP_RENDEZVOUS: rendezvous,
          STANDIN_TP_TIMEOUT_S: '15',
          [`${envPrefix}_MANAGER_SOCKET`]: socket,
          // The driver builds its server arguments in Python, as the Engine API does.
          [`${envPrefix}_SELECTED`]: '1',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
      const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      return new Promise<RankResult>((resolve) =>
        child.once('exit', (status) => {
          clearTimeout(killer);
          const line = out.split('\n').find((l) => l.startsWith('RESULT='));
          const body = line ? (JSON.parse(line.slice('RESULT='.length)) as Omit<RankResult, 'rank' | 'status' | 'stderr'>) : { log: [], events: [], pages: {}, collectives: 0 };
          resolve({ rank, status, stderr: err, ...body });
        }),
      );
    }),
  );
}

/** Tokens whose `pages` whole pages of `pageSize` start at `from`. */
export const tokens = (from: number, pages: number, pageSize = 4): number[] => Array.from({ length: pages * pageSize }, (_, i) => from + i);

/** The scheduler log entries of one kind for one request. */
export const entries = (r: RankResult, kind: string, rid: string): unknown[][] => r.log.filter((e) => e[0] === kind && e[1] === rid);
