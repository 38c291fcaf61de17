import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv fmt [--registry DIR] [--check] [FILES...]

Rewrites contract files in the canonical style: keys in the model's order (kind, id, title, source,
then the kind's fields as the schema declares them, nested objects too; notes last), 2-space
indentation, comments and block text kept, the schema modeline first. Files with YAML errors are
refused (their diagnostics are printed) and never written; writes are atomic.
  --registry DIR  registry folder (default: ./contracts, else the registry shipped in the package)
  --check         write nothing; exit 1 naming every file that would change
  FILES           format only these files (default: every contract in the registry)
Exit status: 0 formatted (or nothing to change), 1 files would change (--check) or were refused, 2 usage.
`;

export const command: CommandModule = {
  name: 'fmt',
  summary: 'rewrite contract files in the canonical key order and style (--check: report only)',
  async run(argv: string[], io: CliIo): Promise<number> {
    const parsed = parseCommandLine('fmt', argv, { registry: { type: 'string' }, check: { type: 'boolean' } }, true);
    const { values, positionals } = parsed;
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const { resolveRegistryDir, readContractFile, listContractFiles, canonicalContractText } = await import('../../registry/index.js');
    const { formatDiagnostics, sortDiagnostics } = await import('../../diagnostics/index.js');
    type Diagnostic = import('../../diagnostics/index.js').Diagnostic;

    const diagnostics: Diagnostic[] = [];
    const registry = resolveRegistryDir(io.cwd, values.registry);
    let files: string[];
    if (positionals.length > 0) {
      files = positionals.map((p) => resolve(io.cwd, p));
      for (const f of files) if (!existsSync(f) || !statSync(f).isFile()) throw new UsageError(`'${relative(io.cwd, f) || f}' is not a file`);
    } else {
      if (!existsSync(registry) || !statSync(registry).isDirectory()) throw new UsageError(`registry folder '${registry}' does not exist`, 'pass --registry DIR');
      files = listContractFiles(registry, diagnostics);
    }
    // The modeline a file gets is relative to its registry root: the chosen registry when the file
    // is inside it, else the folder above its kind folder (`<registry>/<kind>s/<id>.yaml`).
    const rootOf = (path: string) => (path.startsWith(`${registry}${sep}`) ? registry : dirname(dirname(path)));

    const shown = (path: string) => relative(io.cwd, path).split(sep).join('/') || path;
    const changed: string[] = [];
    let refused = 0;
    for (const path of files) {
      const found: Diagnostic[] = [];
      const root = rootOf(path);
      const source = readContractFile(root, path, found);
      diagnostics.push(...found.map((d) => (d.file !== undefined ? { ...d, file: join(root, d.file) } : d)));
      if (!source) {
        refused++;
        continue;
      }
      const text = canonicalContractText(source.file, source.text);
      if (text === source.text) continue;
      changed.push(path);
      if (values.check) io.out(`would reformat: ${shown(path)}\n`);
      else {
        writeAtomically(path, text);
        io.out(`formatted: ${shown(path)}\n`);
      }
    }
    if (diagnostics.length > 0) {
      io.out(formatDiagnostics(sortDiagnostics(diagnostics), { format: 'text', root: registry, cwd: io.cwd, color: io.isTty && io.env['NO_COLOR'] === undefined }));
    }
    const total = files.length;
    if (values.check) io.out(changed.length ? `${changed.length} of ${total} files would be reformatted\n` : `${total} files already formatted\n`);
    else io.out(`formatted ${changed.length} of ${total} files\n`);
    if (refused > 0) io.out(`refused ${refused} file${refused === 1 ? '' : 's'} with errors; fix them first (see above)\n`);
    return refused > 0 || diagnostics.some((d) => d.severity === 'error') || (values.check && changed.length > 0) ? EXIT.failed : EXIT.ok;
  },
};

/**
 * Writes through a temporary file in the same folder, then renames it over the target: a crash
 * or a full disk leaves either the old file or the new one, never half of each. A symbolic link
 * stays a link: the file it points at is replaced.
 */
function writeAtomically(path: string, text: string): void {
  const target = realpathSync(path);
  const mode = statSync(target).mode & 0o777;
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, text, { mode, flag: 'wx' });
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
