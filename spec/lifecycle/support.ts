import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../engine/cli/main.js';
import type { EvidenceDraft, EvidenceRecord } from '../../engine/model/index.js';
import { GENESIS, sealLine, sha256 } from '../../engine/lifecycle/index.js';
import { captureIo } from '../support/io.js';

export const LIFECYCLE_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'lifecycle');
/** A small registry with one hook of each kind of removal path, a gap and its rejection. */
export const WALK = join(LIFECYCLE_FIXTURES, 'walk');

const made: string[] = [];

/** The clock `evidence add` checks times against in specs: the fixtures' evidence is dated up to early 2027. */
export const SPEC_NOW = '2027-06-01T00:00:00Z';

/** A temporary copy of a fixture registry (removed by `removeTemps`). */
export function tempCopy(base: string = WALK): string {
  const dir = mkdtempSync(join(tmpdir(), 'okv-lifecycle-'));
  made.push(dir);
  cpSync(base, dir, { recursive: true });
  return dir;
}

export function removeTemps(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Runs the CLI against a registry folder; the cache goes to a temp folder too. */
export async function cli(dir: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(dir, { ORBITKV_CACHE_DIR: join(dir, '.cache'), ORBITKV_ACTOR: 'orbitkv-maintainers', ORBITKV_NOW: SPEC_NOW });
  const code = await runCli([...argv, '--registry', dir], io);
  return { code, out: io.stdout, err: io.stderr };
}

export const ledgerText = (dir: string) => readFileSync(join(dir, 'evidence', 'ledger.jsonl'), 'utf8');

/** Seals drafts into records in memory, as the ledger would append them. */
export function sealAll(drafts: readonly EvidenceDraft[]): { records: EvidenceRecord[]; text: string } {
  const records: EvidenceRecord[] = [];
  let prev = GENESIS;
  let text = '';
  drafts.forEach((draft, i) => {
    const body = { ...draft, seq: i + 1, prev } as Record<string, unknown>;
    const { line, hash } = sealLine(body);
    records.push({ ...body, hash } as unknown as EvidenceRecord);
    text += `${line}\n`;
    prev = hash;
  });
  return { records, text };
}

/** A deterministic fake sha256 for a name (adapter builds, run digests). */
export const digest = (name: string) => sha256(name);

/** Diagnostic codes in a CLI's stderr. */
export const codes = (text: string) => [...text.matchAll(/OKV\d{4}/g)].map((m) => m[0]);

/** Writes ledger text and its head anchor (the last line's seq and hash), as appends leave them. */
export function writeLedger(file: string, text: string): void {
  writeFileSync(file, text);
  const last = text.split('\n').filter(Boolean).at(-1);
  const head = join(dirname(file), 'ledger.head');
  if (last === undefined) rmSync(head, { force: true });
  else {
    const { seq, hash } = JSON.parse(last) as { seq: number; hash: string };
    writeFileSync(head, `${JSON.stringify({ seq, hash })}\n`);
  }
}
