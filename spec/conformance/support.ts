/**
 * The conformance suite's setup: a registry generated with wheels into a temporary folder, its
 * wheels unzipped into one site folder (dist-info included, so the stand-in engines find the
 * entry points as if pip had installed them), and a runner for the stdlib unittest files.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateAdapters } from '../../generators/index.js';
import { PYTHON, REPO, registryAt, tempDir } from '../generators/support.js';

export const STANDINS = join(REPO, 'spec', 'conformance', 'standins');

const sites = new Map<string, { out: string; site: string }>();

/** The registry at `dir` generated with wheels, and a site folder with every wheel unzipped (once per run). */
export function installedSite(dir: string): { out: string; site: string } {
  let found = sites.get(dir);
  if (!found) {
    const out = tempDir('conformance-out');
    const result = generateAdapters(registryAt(dir), { outDir: out, wheel: true });
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length) throw new Error(`generate ${dir}: ${JSON.stringify(errors)}`);
    const site = join(tempDir('conformance-site'), 'site');
    mkdirSync(site);
    const wheels = readdirSync(join(out, 'wheels')).map((w) => join(out, 'wheels', w));
    const unzip = spawnSync(PYTHON, ['-c', 'import sys, zipfile\nfor w in sys.argv[2:]:\n    zipfile.ZipFile(w).extractall(sys.argv[1])', site, ...wheels], { encoding: 'utf8' });
    if (unzip.status !== 0) throw new Error(unzip.stderr);
    found = { out, site };
    sites.set(dir, found);
  }
  return found;
}

/** Runs `spec/conformance/python/<file>` (only the tests named in `only`, when given) against the site; returns unittest's log (stderr); throws with it on failure. */
export function conformance(file: string, site: string, only: string[] = []): string {
  const r = spawnSync(PYTHON, ['-m', 'unittest', '-v', ...only.flatMap((name) => ['-k', name]), file.replace(/\.py$/, '')], {
    cwd: join(REPO, 'spec', 'conformance', 'python'),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONDONTWRITEBYTECODE: '1', CONFORMANCE_SITE: site, CONFORMANCE_STANDINS: STANDINS },
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (r.status !== 0) throw new Error(`conformance ${file} exited ${r.status ?? r.signal}\n${r.stdout}\n${r.stderr}`);
  return r.stderr;
}
