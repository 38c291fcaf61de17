import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { extractTable } from './extract.js';
import type { ModuleInfo } from './module-index.js';

/**
 * Reads the calls of helper functions on demand. The scan reads bodies only for the functions
 * assertions name; when a call walk enters another function, its file is parsed again here,
 * once, and every function of it gets its calls. The file must still have the bytes the scan
 * hashed (offsets identify the functions); a file changed since then is not read, and the walk
 * does not enter it.
 */
export class BodyReader {
  private readonly read = new Map<string, boolean>();

  constructor(private readonly parser: Parser, private readonly root: string) {}

  /** True when every function of the module has its calls. */
  ensure(module: ModuleInfo): boolean {
    const known = this.read.get(module.file);
    if (known !== undefined) return known;
    const ok = this.fill(module);
    this.read.set(module.file, ok);
    return ok;
  }

  private fill(module: ModuleInfo): boolean {
    if (module.namespace || module.scan.status !== 'parsed' || !module.scan.sha256) return false;
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(this.root, module.file));
    } catch {
      return false;
    }
    if (createHash('sha256').update(bytes).digest('hex') !== module.scan.sha256) return false;
    const text = bytes.toString('utf8');
    const tree = this.parser.parse(text);
    if (!tree) return false;
    try {
      const table = extractTable(tree, text, [], new Set(), true);
      const byStart = new Map(table.definitions.flatMap((d) => (d.kind === 'function' ? [[d.start, d] as const] : [])));
      for (const def of module.scan.definitions) {
        if (def.kind !== 'function' || def.bodyRead) continue;
        const fresh = byStart.get(def.start);
        if (fresh) {
          def.calls = fresh.calls;
          def.bodyRead = true;
        }
      }
      return true;
    } finally {
      tree.delete();
    }
  }
}
