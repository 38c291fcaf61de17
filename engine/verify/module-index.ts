import type { Definition, FileScan } from './table.js';
import { moduleName, type SourceTree } from './source-tree.js';

/** One scanned module with its definitions grouped by qualified name. */
export interface ModuleInfo {
  name: string;
  /** Checkout-relative file. */
  file: string;
  /** True for `__init__.py`: relative imports resolve against the module itself. */
  isPackage: boolean;
  /** A folder without `__init__.py` (PEP 420 namespace package): `file` is the folder, `/`-terminated, and it defines nothing. */
  namespace?: true;
  scan: FileScan;
  /** Definitions by qualified name, in source order (a later one rebinds the name). */
  byName: Map<string, Definition[]>;
}

/** The scanned package: modules by dotted name and by file. */
export class ModuleIndex {
  readonly modules = new Map<string, ModuleInfo>();
  readonly byFile = new Map<string, ModuleInfo>();

  constructor(readonly tree: SourceTree, scans: readonly FileScan[]) {
    for (const scan of scans) {
      const isPackage = scan.file.endsWith('/__init__.py') || scan.file === '__init__.py';
      const inImportRoot = tree.importRoot === '' || scan.file.startsWith(`${tree.importRoot}/`);
      const name = inImportRoot ? moduleName(scan.file, tree.importRoot) : scan.file;
      const byName = new Map<string, Definition[]>();
      for (const d of scan.definitions) {
        const list = byName.get(d.qualname);
        if (list) list.push(d);
        else byName.set(d.qualname, [d]);
      }
      const info: ModuleInfo = { name, file: scan.file, isPackage, scan, byName };
      if (inImportRoot) this.modules.set(name, info);
      this.byFile.set(scan.file, info);
    }
    // folders of the package without __init__.py import as namespace packages
    const top = tree.packageDir.split('/').pop() ?? '';
    for (const name of [...this.modules.keys()]) {
      if (name !== top && !name.startsWith(`${top}.`)) continue;
      const parts = name.split('.');
      for (let i = parts.length - 1; i >= 1; i--) {
        const prefix = parts.slice(0, i).join('.');
        if (this.modules.has(prefix)) continue;
        const folder = `${tree.importRoot ? `${tree.importRoot}/` : ''}${parts.slice(0, i).join('/')}/`;
        const scan: FileScan = { file: folder, status: 'parsed', bytes: 0, syntaxErrors: [], errorOffsets: [], definitions: [], needles: [], flags: [] };
        this.modules.set(prefix, { name: prefix, file: folder, isPackage: true, namespace: true, scan, byName: new Map() });
      }
    }
  }

  /** The absolute module a `from M import` refers to inside `from`. */
  absoluteModule(from: ModuleInfo, written: string): string {
    const dots = /^\.*/.exec(written)?.[0].length ?? 0;
    if (dots === 0) return written;
    const parts = from.name.split('.');
    if (!from.isPackage) parts.pop();
    for (let i = 1; i < dots; i++) parts.pop();
    const rest = written.slice(dots);
    return [...parts, ...(rest ? [rest] : [])].join('.');
  }

  /** Whether a module name belongs to the scanned package (as opposed to the standard library or a dependency). */
  inPackage(module: string): boolean {
    const top = this.tree.packageDir.split('/').pop() ?? '';
    return module === top || module.startsWith(`${top}.`);
  }
}
