import { type Dirent, existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import { type Diagnostic, diagnose } from '../diagnostics/index.js';
import type { ScanTarget } from './pool.js';

/** Folders never searched for the package: VCS data, caches, environments, build output. */
const SKIPPED_DIRS = new Set(['__pycache__', 'node_modules', '.git', '.hg', '.tox', '.venv', 'venv', 'build', 'dist', 'site-packages']);
/** How deep below the checkout root the package folder may sit (`python/sglang` is depth 2). */
const PACKAGE_SEARCH_DEPTH = 3;
const EXTENSION_SUFFIX = /\.(so|pyd)$|\.(cpython|abi3|pypy)[^/]*\.so$/;

/** The checkout as verification sees it. */
export interface SourceTree {
  /** Absolute checkout root. */
  root: string;
  /** The package folder relative to the root (`python/sglang`), `/`-separated. */
  packageDir: string;
  /** The import root relative to the checkout root (`python`, or `` when the package is at the top). */
  importRoot: string;
  /** Python files of the package, paths relative to the root. */
  files: ScanTarget[];
  /** Compiled extension modules of the package, by dotted module name. */
  extensionModules: Set<string>;
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

function isPackage(dir: string): boolean {
  return existsSync(join(dir, '__init__.py'));
}

/**
 * Where the top-level package lives: at the root, under `src/` or `python/`, else the shallowest
 * folder of that name with an `__init__.py` (searched breadth first).
 */
export function findPackageDir(root: string, pkg: string): string | undefined {
  for (const candidate of [pkg, `src/${pkg}`, `python/${pkg}`]) if (isPackage(join(root, candidate))) return candidate;
  let level: string[] = [''];
  for (let depth = 0; depth < PACKAGE_SEARCH_DEPTH && level.length; depth++) {
    const nextLevel: string[] = [];
    for (const rel of level) {
      let entries: Dirent[];
      try {
        entries = readdirSync(join(root, rel), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (!e.isDirectory() || e.name.startsWith('.') || SKIPPED_DIRS.has(e.name)) continue;
        const child = rel ? `${rel}/${e.name}` : e.name;
        if (e.name === pkg && isPackage(join(root, child))) return child;
        nextLevel.push(child);
      }
    }
    level = nextLevel;
  }
  return undefined;
}

/** Module name of a checkout-relative `.py` file under `importRoot` (`__init__.py` names its package). */
export function moduleName(file: string, importRoot: string): string {
  const inRoot = importRoot ? file.slice(importRoot.length + 1) : file;
  const parts = inRoot.replace(/\.py$/, '').split('/');
  if (parts[parts.length - 1] === '__init__') parts.pop();
  return parts.join('.');
}

/**
 * Lists the package's Python files. Symbolic links are followed once: a link back to a folder
 * being walked is a loop (reported), a second path to a folder already walked is skipped.
 */
export function readSourceTree(sourceDir: string, pkg: string, diagnostics: Diagnostic[]): SourceTree | undefined {
  const root = resolve(sourceDir);
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    diagnostics.push(diagnose('sourceNotDirectory', {}, sourceDir));
    return undefined;
  }
  const packageDir = findPackageDir(root, pkg);
  if (packageDir === undefined) {
    diagnostics.push(diagnose('packageNotFound', {}, pkg, sourceDir));
    return undefined;
  }
  const importRoot = posix.dirname(packageDir) === '.' ? '' : posix.dirname(packageDir);
  const files: ScanTarget[] = [];
  const extensionModules = new Set<string>();
  const visited = new Set<string>();
  const walk = (dir: string, ancestors: Set<string>): void => {
    const real = realpathSync(dir);
    visited.add(real);
    const here = new Set(ancestors).add(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      diagnostics.push(diagnose('sourceUnreadable', { file: toPosix(relative(root, dir)) }, (error as NodeJS.ErrnoException).code ?? (error as Error).message));
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, e.name);
      const rel = toPosix(relative(root, path));
      let isDirectory = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(path);
          const st = statSync(target);
          isDirectory = st.isDirectory();
          isFile = st.isFile();
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ELOOP') diagnostics.push(diagnose('sourceSymlinkLoop', { file: rel }, rel));
          else diagnostics.push(diagnose('sourceUnreadable', { file: rel }, code ?? (error as Error).message));
          continue;
        }
        if (isDirectory && here.has(target)) {
          diagnostics.push(diagnose('sourceSymlinkLoop', { file: rel }, toPosix(relative(root, target)) || '.'));
          continue;
        }
        if (isDirectory && visited.has(target)) continue;
      }
      if (isDirectory) {
        if (!SKIPPED_DIRS.has(e.name) && !e.name.startsWith('.')) walk(path, here);
      } else if (isFile && e.name.endsWith('.py')) files.push({ absolute: path, file: rel });
      else if (isFile && EXTENSION_SUFFIX.test(e.name)) extensionModules.add(moduleName(rel.replace(/\..*$/, '.py'), importRoot));
    }
  };
  walk(join(root, packageDir), new Set());
  return { root, packageDir, importRoot, files, extensionModules };
}
