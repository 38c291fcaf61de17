/**
 * The inputs a gate run qualifies, hashed before and after the run: the registry's contracts
 * (every file under the registry folder except the evidence ledger the run appends to and
 * caches), the generated adapter manifest (which lists the sha256 of every generated file and
 * wheel) and the native addon the Manager loads. A run whose inputs changed while it ran
 * qualified nothing: `--record` refuses it.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { addonPath } from '../../../native/index.js';

export interface InputDigests {
  contracts: string;
  manifest: string;
  addon: string;
  /** sha256 over the three, what `gate.result` records as `hashes.before` / `hashes.after`. */
  combined: string;
}

const SKIPPED = new Set(['evidence', '.orbitkv-cache', 'node_modules', '.git']);

/** sha256 over every contract file's relative path and bytes, in path order. */
export function contractsDigest(root: string): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) walk(path);
      } else if (entry.isFile()) files.push(path);
    }
  };
  walk(root);
  const h = createHash('sha256');
  for (const f of files) {
    const rel = relative(root, f).split(sep).join('/');
    h.update(`${rel}\0${statSync(f).size}\0`);
    h.update(readFileSync(f));
  }
  return h.digest('hex');
}

const fileDigest = (path: string): string => {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return 'missing';
  }
};

export function inputDigests(registryRoot: string, manifest: string): InputDigests {
  const contracts = contractsDigest(registryRoot);
  const m = fileDigest(manifest);
  const addon = fileDigest(addonPath());
  const combined = createHash('sha256').update(`contracts ${contracts}\nmanifest ${m}\naddon ${addon}\n`).digest('hex');
  return { contracts, manifest: m, addon, combined };
}

/** Which inputs differ between two digests. */
export function changedInputs(before: InputDigests, after: InputDigests): string[] {
  return (['contracts', 'manifest', 'addon'] as const).filter((k) => before[k] !== after[k]);
}
