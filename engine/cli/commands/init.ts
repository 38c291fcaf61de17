import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv init DIR [--name NAME] [--package-prefix PREFIX] [--env-prefix PREFIX]

Sets up a registry a team can start from: DIR/schema/ (the JSON Schemas the contracts' modelines
point at, so editors complete and check them), DIR/policies/policy.product.yaml (the product's
name, adapter package prefix and environment prefix, which every generated package uses), a
recheck policy, and a README. Then \`orbitkv new KIND ID --registry DIR\` adds contracts.
  --name NAME              product name in messages and metadata (default: DIR's name, capitalised)
  --package-prefix PREFIX  adapter packages are PREFIX_<engine> (default: DIR's name, lower-case)
  --env-prefix PREFIX      environment variables are PREFIX_* (default: the package prefix, upper-case)
Refuses a DIR that exists and is not empty (exit 1). Exit status: 0 written, 1 refused, 2 usage.
`;

const NAME = /^[A-Za-z][A-Za-z0-9 ._-]*$/;
const PACKAGE_PREFIX = /^[a-z][a-z0-9]*$/;
const ENV_PREFIX = /^[A-Z][A-Z0-9]*$/;

/** The product policy text (values checked against the schema's patterns above, so they need no quoting). */
function productPolicy(name: string, packagePrefix: string, envPrefix: string): string {
  return [
    '# yaml-language-server: $schema=../schema/policy.json',
    'kind: policy',
    'id: policy.product',
    `title: The product is ${name}; adapters ${packagePrefix}_<engine>, environment ${envPrefix}_*`,
    'source:',
    `  document: ${name} registry`,
    '  section: Identity',
    'policy:',
    '  rule: product',
    `  name: ${name}`,
    `  packagePrefix: ${packagePrefix}`,
    `  envPrefix: ${envPrefix}`,
    '',
  ].join('\n');
}

function recheckPolicy(name: string): string {
  return [
    '# yaml-language-server: $schema=../schema/policy.json',
    'kind: policy',
    'id: policy.recheck',
    'title: Engine rechecks are due every 30 days',
    'source:',
    `  document: ${name} registry`,
    '  section: Maintenance',
    'policy:',
    '  rule: recheck',
    '  maxAgeDays: 30',
    '',
  ].join('\n');
}

const readme = (name: string, packagePrefix: string, envPrefix: string) => `# The ${name} contract registry

One YAML document per contract, in one folder per kind (engines/, interfaces/, hooks/, gaps/,
rejections/, gates/, upstreams/, policies/). \`schema/\` holds the JSON Schemas the modelines
point at. The product policy names the product: adapter packages are \`${packagePrefix}_<engine>\`,
environment variables \`${envPrefix}_*\` (the Manager socket is \`${envPrefix}_MANAGER_SOCKET\`).

    orbitkv new engine engine.vllm --registry .     # then interface, hook, rejection, gate ...
    orbitkv validate --registry .
    orbitkv generate --registry . --wheel
`;

export const command: CommandModule = {
  name: 'init',
  summary: 'set up a new registry: schemas for the modelines, the product policy, a README',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandLine('init', argv, { name: { type: 'string' }, 'package-prefix': { type: 'string' }, 'env-prefix': { type: 'string' } }, true);
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new UsageError('expected one DIR', 'orbitkv init my-registry --name Acme');
    const dir = resolve(io.cwd, positionals[0]!);
    const word = basename(dir).toLowerCase().replace(/[^a-z0-9]/g, '');
    const packagePrefix = values['package-prefix'] ?? word;
    const name = values.name ?? (word ? word[0]!.toUpperCase() + word.slice(1) : '');
    const envPrefix = values['env-prefix'] ?? packagePrefix.toUpperCase();
    if (!PACKAGE_PREFIX.test(packagePrefix)) throw new UsageError(`package prefix '${packagePrefix}' must match ${PACKAGE_PREFIX.source}`, 'pass --package-prefix, e.g. acme');
    if (!NAME.test(name)) throw new UsageError(`product name '${name}' must match ${NAME.source}`, 'pass --name, e.g. Acme');
    if (!ENV_PREFIX.test(envPrefix)) throw new UsageError(`env prefix '${envPrefix}' must match ${ENV_PREFIX.source}`, 'pass --env-prefix, e.g. ACME');
    const shown = relative(io.cwd, dir).split(sep).join('/') || '.';
    if (existsSync(dir) && readdirSync(dir).length > 0) {
      io.err(`orbitkv init: ${shown} exists and is not empty; nothing written\n`);
      return EXIT.failed;
    }
    const { embeddedRegistryDir } = await import('../../registry/index.js');
    const schemas = join(embeddedRegistryDir(), 'schema');
    mkdirSync(join(dir, 'schema'), { recursive: true });
    for (const file of readdirSync(schemas).filter((f) => f.endsWith('.json')).sort()) writeFileSync(join(dir, 'schema', file), readFileSync(join(schemas, file)));
    mkdirSync(join(dir, 'policies'));
    writeFileSync(join(dir, 'policies', 'policy.product.yaml'), productPolicy(name, packagePrefix, envPrefix));
    writeFileSync(join(dir, 'policies', 'policy.recheck.yaml'), recheckPolicy(name));
    writeFileSync(join(dir, 'README.md'), readme(name, packagePrefix, envPrefix));
    io.out(`created ${shown}: schema/, policies/policy.product.yaml (${name}, ${packagePrefix}_<engine>, ${envPrefix}_*), policies/policy.recheck.yaml, README.md\n`);
    return EXIT.ok;
  },
};
