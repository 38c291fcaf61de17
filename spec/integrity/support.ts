import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { captureIo } from '../support/io.js';
import { LIFECYCLE_FIXTURES, SPEC_NOW, tempCopy } from '../lifecycle/support.js';

export const KEYS = join(LIFECYCLE_FIXTURES, '..', 'keys');
export const pub = (name: string) => readFileSync(join(KEYS, `${name}.pub`), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');

/** A copy of the walk registry whose evidence must be signed by the maintainer key (no unsigned history). */
export function signedRegistry(): string {
  const dir = tempCopy();
  mkdirSync(join(dir, 'evidence'), { recursive: true });
  writeFileSync(join(dir, 'evidence', 'allowed_signers'), `orbitkv-maintainers ${pub('maintainer')} maintainer\n`);
  return dir;
}

/** Runs the CLI on a registry with the snapshot cache in `cache`. */
export async function run(dir: string, cache: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(dir, { ORBITKV_CACHE_DIR: cache, ORBITKV_ACTOR: 'orbitkv-maintainers', ORBITKV_NOW: SPEC_NOW, ORBITKV_SIGNING_KEY: join(KEYS, 'maintainer') });
  const code = await runCli([...argv, '--registry', dir], io);
  return { code, out: io.stdout, err: io.stderr };
}

export const ledgerPath = (dir: string) => join(dir, 'evidence', 'ledger.jsonl');
export const headPath = (dir: string) => join(dir, 'evidence', 'ledger.head');
