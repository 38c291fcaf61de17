import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv new KIND ID [--registry DIR] [--engine NAME]

Scaffolds a schema-valid contract in <registry>/<kind folder>/<ID>.yaml (engines/, ..., policies/)
with the schema modeline.
Every value to decide carries a FILL marker; \`orbitkv validate\` lists them with their positions.
References point at real contracts of the right kind where the registry has them.
  KIND            engine, interface, hook, gap, rejection, gate, upstream or policy
  ID              the contract id (lower-case words joined by '.' or '-', e.g. hook.vllm.new-target)
  --registry DIR  registry folder (default: ./contracts, else the registry shipped in the package)
  --engine NAME   the engine the contract is about (default: the registry's first runtime engine)
Refuses to overwrite an existing file (exit 1). Exit status: 0 written, 1 refused, 2 usage.
`;

const ID_PATTERN = /^[a-z0-9][a-z0-9.-]*[a-z0-9]$/;
const ENGINE_PATTERN = /^[a-z][a-z0-9_-]*$/;

export const command: CommandModule = {
  name: 'new',
  summary: 'scaffold a schema-valid contract with FILL markers that validate lists',
  async run(argv: string[], io: CliIo): Promise<number> {
    const parsed = parseCommandLine('new', argv, { registry: { type: 'string' }, engine: { type: 'string' } }, true);
    const { values, positionals } = parsed;
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const { CONTRACT_KINDS, KIND_FOLDERS } = await import('../../model/index.js');
    const [kind, id, ...extra] = positionals;
    if (kind === undefined || id === undefined || extra.length > 0) throw new UsageError('expected KIND and ID', 'orbitkv new hook hook.vllm.new-target');
    if (!(CONTRACT_KINDS as readonly string[]).includes(kind)) throw new UsageError(`unknown kind '${kind}'`, `use one of: ${CONTRACT_KINDS.join(', ')}`);
    if (!ID_PATTERN.test(id)) throw new UsageError(`'${id}' is not a contract id`, `lower-case words joined by '.' or '-', e.g. ${kind}.name`);
    if (values.engine !== undefined && !ENGINE_PATTERN.test(values.engine)) throw new UsageError(`'${values.engine}' is not an engine name`, 'lower-case, e.g. vllm');

    const { loadRegistry, resolveRegistryDir, scaffoldContract, validateRegistry } = await import('../../registry/index.js');
    const { formatDiagnostics } = await import('../../diagnostics/index.js');
    const dir = resolveRegistryDir(io.cwd, values.registry);
    if (!existsSync(dir)) throw new UsageError(`registry folder '${dir}' does not exist`, 'create it, or pass --registry DIR');
    const folder = KIND_FOLDERS[kind as (typeof CONTRACT_KINDS)[number]];
    const file = `${folder}/${id}.yaml`;
    const path = join(dir, file);
    const shown = relative(io.cwd, path).split(sep).join('/') || path;
    if (existsSync(path)) {
      io.err(`orbitkv new: ${shown} already exists; not overwritten\n`);
      return EXIT.failed;
    }
    const { registry } = loadRegistry(dir);
    if (registry.has(id)) {
      io.err(`orbitkv new: contract '${id}' already exists in ${relative(io.cwd, join(dir, registry.entry(id)!.source.file)) || id}\n`);
      return EXIT.failed;
    }
    const text = scaffoldContract(kind as (typeof CONTRACT_KINDS)[number], id, file, registry, {
      today: new Date().toISOString().slice(0, 10),
      ...(values.engine !== undefined ? { engine: values.engine } : {}),
    });
    mkdirSync(join(dir, folder), { recursive: true });
    // `wx`: fails rather than overwrite if the file appeared since the check above.
    writeFileSync(path, text, { flag: 'wx' });
    io.out(`created ${shown}\n`);
    // What is left to fill, as validate will list it: only this contract's findings.
    const after = loadRegistry(dir);
    const own = [...after.diagnostics, ...validateRegistry(after.registry)].filter((d) => d.file === file);
    if (own.length > 0) {
      io.out(`\nto fill in before it is done:\n\n`);
      io.out(formatDiagnostics(own, { format: 'text', root: dir, cwd: io.cwd, color: io.isTty && io.env['NO_COLOR'] === undefined }));
    }
    return EXIT.ok;
  },
};
