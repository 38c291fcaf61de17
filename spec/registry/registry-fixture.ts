import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRegistry, validateRegistry } from '../../engine/registry/index.js';
import type { Diagnostic } from '../../engine/diagnostics/index.js';

/** `spec/fixtures/registry`. */
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'registry');
/** A small registry every semantic rule passes on; cases edit a copy of it. */
export const MINIMAL = join(FIXTURES, 'minimal');
/** The date age checks are measured against in specs. */
export const TODAY = '2026-11-29';

/** One change to a copy of a fixture registry. */
export type Edit =
  | { file: string; replace: [from: string, to: string] }
  | { file: string; text: string }
  | { file: string; remove: true }
  | { file: string; copyOf: string };

const made: string[] = [];

/** A temporary copy of `base` (or, for `null`, an empty folder) with `edits` applied; removed by `removeTempRegistries`. */
export function tempRegistry(edits: readonly Edit[] = [], base: string | null = MINIMAL): string {
  const dir = mkdtempSync(join(tmpdir(), 'okv-registry-'));
  made.push(dir);
  if (base) cpSync(base, dir, { recursive: true });
  for (const edit of edits) {
    const path = join(dir, edit.file);
    if ('remove' in edit) {
      rmSync(path);
    } else if ('copyOf' in edit) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, readFileSync(join(dir, edit.copyOf)));
    } else if ('text' in edit) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, edit.text);
    } else {
      const before = readFileSync(path, 'utf8');
      if (!before.includes(edit.replace[0])) throw new Error(`fixture edit: '${edit.replace[0]}' not found in ${edit.file}`);
      writeFileSync(path, before.replace(edit.replace[0], edit.replace[1]));
    }
  }
  return dir;
}

export function removeTempRegistries(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A finding reduced to what specs assert on: code, file, line and column. */
export interface Finding {
  code: string;
  file: string;
  line: number;
  col: number;
}

export function finding(d: Diagnostic): Finding {
  return { code: d.code, file: d.file ?? '', line: d.range?.line ?? 0, col: d.range?.col ?? 0 };
}

/** Loads and validates `dir`; every diagnostic, load and rules together, as findings. */
export function findings(dir: string): Finding[] {
  const { registry, diagnostics } = loadRegistry(dir);
  return [...diagnostics, ...validateRegistry(registry, { today: TODAY })].map(finding);
}
