import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';
import type { EngineContract } from '../model/index.js';
import { parseVersion, samePublicVersion } from '../registry/version.js';
import type { ModuleIndex, ModuleInfo } from './module-index.js';
import type { CheckoutVersion } from './report.js';

const VERSION_NAMES = ['__version__', 'version', 'VERSION'];
const COMMIT_NAMES = ['__commit_id__', 'commit_id', '__commit__', '__git_commit__'];

/** The value of a plain string literal's source text, else undefined. */
function literal(text: string | undefined): string | undefined {
  const m = text === undefined ? null : /^[rRuU]?(['"])(.*)\1$/s.exec(text.trim());
  return m ? m[2] : undefined;
}

/** Looks like a published version (`0.31.0`, `0.5.21.post1`), not a placeholder such as `dev`. */
const RELEASED = /^\d+(\.\d+)+/;

/**
 * A module-level string bound to one of `names`, following `from X import name` inside the
 * package. Unconditional bindings first (the last one wins), then conditional ones in source
 * order: `try: from ._version import __version__` comes before its `except` fallback.
 */
function assignedString(index: ModuleIndex, module: ModuleInfo, names: string[], accept: (v: string) => boolean, depth = 0): { value: string; file: string; module: ModuleInfo } | undefined {
  for (const name of names) {
    const defs = module.byName.get(name) ?? [];
    const ordered = [...defs.filter((d) => !d.conditional).reverse(), ...defs.filter((d) => d.conditional)];
    for (const def of ordered) {
      // an `except` handler's literal is what the module says when it could not tell
      if (def.inExcept) continue;
      if (def.kind === 'assignment') {
        const value = literal(def.value);
        if (value !== undefined && accept(value)) return { value, file: module.file, module };
      }
      if (def.kind === 'import' && def.name && depth < 4) {
        const target = index.modules.get(index.absoluteModule(module, def.module));
        const r = target && assignedString(index, target, [def.name], accept, depth + 1);
        if (r) return r;
      }
    }
  }
  return undefined;
}

function metadataVersion(dirs: string[]): { value: string; file: string } | undefined {
  for (const dir of dirs) {
    const pyproject = join(dir, 'pyproject.toml');
    if (existsSync(pyproject)) {
      const project = /^\[project\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(readFileSync(pyproject, 'utf8'))?.[1] ?? '';
      const m = /^version\s*=\s*["']([^"']+)["']/m.exec(project);
      if (m) return { value: m[1]!, file: pyproject };
    }
    const infos = [join(dir, 'PKG-INFO'), ...safeList(dir).filter((f) => f.endsWith('.egg-info') || f.endsWith('.dist-info')).map((f) => join(dir, f, f.endsWith('.dist-info') ? 'METADATA' : 'PKG-INFO'))];
    for (const info of infos) {
      if (!existsSync(info)) continue;
      const m = /^Version:\s*(\S+)/m.exec(readFileSync(info, 'utf8'));
      if (m) return { value: m[1]!, file: info };
    }
  }
  return undefined;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function gitDirs(root: string): { gitDir: string; common: string } | undefined {
  let gitDir = join(root, '.git');
  try {
    if (statSync(gitDir).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitDir, 'utf8'));
      if (!m) return undefined;
      gitDir = resolve(root, m[1]!.trim());
    }
    const common = existsSync(join(gitDir, 'commondir')) ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim()) : gitDir;
    return { gitDir, common };
  } catch {
    return undefined;
  }
}

/** Every ref of a repository: loose files under refs/ and packed refs (tags resolved to their commits). */
function gitRefs(common: string): Map<string, string> {
  const refs = new Map<string, string>();
  try {
    let last = '';
    for (const line of readFileSync(join(common, 'packed-refs'), 'utf8').split('\n')) {
      const peeled = /^\^([0-9a-f]{40})$/.exec(line);
      if (peeled && last) refs.set(last, peeled[1]!);
      const m = /^([0-9a-f]{40}) (\S+)$/.exec(line);
      if (m) refs.set((last = m[2]!), m[1]!);
    }
  } catch {
    // no packed refs
  }
  const walk = (dir: string, prefix: string): void => {
    for (const e of safeList(join(common, dir))) {
      const rel = `${prefix}${e}`;
      const path = join(common, dir, e);
      if (statSync(path).isDirectory()) walk(join(dir, e), `${rel}/`);
      else refs.set(rel, readFileSync(path, 'utf8').trim());
    }
  };
  walk('refs', 'refs/');
  return refs;
}

/** The commit `.git/HEAD` points at (a folder, or a `gitdir:` file as in submodules and worktrees). */
export function gitHead(root: string): string | undefined {
  const dirs = gitDirs(root);
  if (!dirs) return undefined;
  try {
    const head = readFileSync(join(dirs.gitDir, 'HEAD'), 'utf8').trim();
    const ref = /^ref:\s*(.+)$/.exec(head)?.[1];
    if (!ref) return /^[0-9a-f]{40}$/.test(head) ? head : undefined;
    const loose = join(dirs.gitDir, ref);
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    return gitRefs(dirs.common).get(ref);
  } catch {
    return undefined;
  }
}

/** A release tag (`v0.31.0`, `0.5.21`, `v0.6.0rc1`: any PEP 440 version) on the commit, as release checkouts have. */
export function gitTagVersion(root: string, commit: string): { value: string; file: string } | undefined {
  const dirs = gitDirs(root);
  if (!dirs) return undefined;
  for (const [ref, target] of gitRefs(dirs.common)) {
    const m = /^refs\/tags\/v?(\d+(?:\.\d+)+[0-9a-zA-Z.+_-]*)$/.exec(ref);
    if (m && parseVersion(m[1]!) && (target === commit || taggedCommit(dirs.common, target) === commit)) return { value: m[1]!, file: `.git ${ref}` };
  }
  return undefined;
}

/** The commit an annotated tag object points at, when the object is stored loose. */
function taggedCommit(common: string, object: string): string | undefined {
  try {
    const raw = inflateSync(readFileSync(join(common, 'objects', object.slice(0, 2), object.slice(2)))).toString('utf8');
    return raw.startsWith('tag ') ? /\0object ([0-9a-f]{40})\n/.exec(raw)?.[1] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the checkout says about its version, most trustworthy first: a release tag on the
 * checked-out commit, then distribution metadata (PKG-INFO, `*.dist-info/METADATA`, a static
 * `pyproject.toml` `[project] version`), then the engine's version file (following a re-export
 * such as `from ._version import __version__`, never a literal from an `except` fallback).
 * Nothing found is "unknown", never a placeholder. The commit comes from `.git`, else a commit
 * id in the version file.
 */
export function checkoutVersion(engine: EngineContract, index: ModuleIndex): CheckoutVersion {
  const tree = index.tree;
  const gitCommit = gitHead(tree.root);
  const fromTag = gitCommit ? gitTagVersion(tree.root, gitCommit) : undefined;
  const fromMetadata = fromTag ? undefined : metadataVersion([tree.root, join(tree.root, tree.importRoot), dirname(join(tree.root, tree.packageDir))]);
  const versionModule = engine.versionFile ? index.byFile.get(engine.versionFile) : undefined;
  const fromFile = versionModule && assignedString(index, versionModule, VERSION_NAMES, (v) => RELEASED.test(v));
  const version = fromTag ?? fromMetadata ?? fromFile;
  const commitHolders = [fromFile?.module, versionModule].filter((m): m is ModuleInfo => m !== undefined);
  const fileCommit = gitCommit ? undefined : commitHolders.map((m) => assignedString(index, m, COMMIT_NAMES, (v) => /^g?[0-9a-f]{7,40}$/.test(v))).find(Boolean);
  const commit = gitCommit ?? fileCommit?.value.replace(/^g(?=[0-9a-f]{7})/, '');
  const out: CheckoutVersion = { pinnedVersion: engine.version, ...(engine.commit ? { pinnedCommit: engine.commit } : {}) };
  if (version) Object.assign(out, { version: version.value, versionFrom: version.file.startsWith(tree.root) ? version.file.slice(tree.root.length + 1) : version.file, versionMatches: samePublicVersion(version.value, engine.version) });
  if (commit) Object.assign(out, { commit, commitFrom: gitCommit ? '.git' : fileCommit!.file, ...(engine.commit ? { commitMatches: commit.length >= 7 && engine.commit.startsWith(commit.toLowerCase()) } : {}) });
  return out;
}
