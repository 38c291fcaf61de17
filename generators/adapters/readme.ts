import type { AdapterPackage } from './plan.js';

/** A Markdown table cell: contract text stays on one line and cannot end the cell. */
const cell = (text: string): string =>
  text.replace(/[\\|`<>&]/g, (c) => `&#${c.charCodeAt(0)};`).replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');

interface HookRow {
  id: string;
  target: string;
  hookType: string;
  activation: { mode: string; switches?: { env: string; value: string }[] };
}

interface SelectorRow {
  flag: string;
  value: string;
  jsonKey?: string;
}

/** How the engine is told to use the adapter, from the template data (style-specific). */
function selectionLines(pkg: AdapterPackage): string[] {
  const template = pkg.data.template as { selectors?: SelectorRow[]; dynamicConfig?: Record<string, string>[]; connectors?: { className: string }[] };
  const env = `${pkg.product.envPrefix}_SELECTED`;
  if (template.dynamicConfig) {
    const config = JSON.stringify(template.dynamicConfig[0] ?? {});
    return [
      '## Select it',
      '',
      "SGLang's `dynamic` HiCache storage backend loads the storage class by module path:",
      '',
      '```sh',
      `sglang serve ... --enable-hierarchical-cache --hicache-storage-backend dynamic --hicache-storage-backend-extra-config '${config}'`,
      '```',
      '',
      `The plugin reads the selection without re-parsing the command line (also from a \`--config\` file); with the Engine API set \`${env}=1\`. The storage constructor runs the rejection checks on the live storage config before any Manager connection.`,
    ];
  }
  if (template.selectors) {
    const s = template.selectors[0]!;
    return [
      '## Select it',
      '',
      '```sh',
      `sglang serve ... ${s.flag} ${s.value}`,
      '```',
      '',
      `The plugin reads the selection without re-parsing the command line (\`${s.flag} ${s.value}\` or \`${s.flag}=${s.value}\`, also in a \`--config\` file); with the Engine API set \`${env}=1\` so the hooks register before SGLang applies them. The backend factory runs the rejection checks on the live server arguments, verifies the hooks and only then reaches the Manager.`,
    ];
  }
  const names = (template.connectors ?? []).map((c) => `\`${c.className}\``).join(', ');
  return ['## Select it', '', `Name the connector (${names}) in \`--kv-transfer-config\`; vLLM's factory builds it as \`cls(vllm_config, role, kv_cache_config)\`. vLLM turns its hybrid KV cache manager off by itself for a connector that does not implement \`SupportsHMA\`; forcing it on makes the factory refuse the connector.`];
}

/**
 * The package README (also the wheel's long description): how the engine loads it, how to select
 * it, how to run the preflight, and every rejection and hook it carries, from the same data as
 * `_data.py`.
 */
export function packageReadme(pkg: AdapterPackage): string {
  const engine = pkg.engine;
  const product = pkg.product.name;
  const rejections = pkg.data.rejections as { id: string; message: string; instead: string }[];
  const hooks = ((pkg.data.template as { hooks?: HookRow[] }).hooks ?? []) as HookRow[];
  const lines = [
    `# ${pkg.distribution}`,
    '',
    `<!-- Generated from the ${product} contracts by the contract generator; do not edit. -->`,
    '',
    `The ${product} adapter for ${engine.distribution} ${engine.version} (\`${engine.id}\`${engine.commit ? `, commit \`${engine.commit}\`` : ''}).`,
    '',
    '## Install and load',
    '',
    '```sh',
    `pip install "${pkg.distribution}[${engine.name}]"   # pins ${engine.distribution}==${engine.version} exactly`,
    '```',
    '',
    `The engine loads it through the entry point \`${pkg.entryPointName} = ${pkg.entryPoint}\` in the group \`${pkg.entryPointGroup}\`${engine.plugins?.allowlistEnv ? ` (when \`${engine.plugins.allowlistEnv}\` is set, it must include \`${pkg.entryPointName}\`)` : ''}. Importing the package imports nothing heavy and opens no connection; when ${product} is not the selected cache the entry point returns at once. The engine pin matches by PEP 440 version equality with the local part ignored (\`${engine.version}+cu128\` is \`${engine.version}\`).`,
    '',
    ...selectionLines(pkg),
    '',
    '## Preflight',
    '',
    '```sh',
    `${pkg.distribution}-preflight --profile profile.json   # or: python3 -m ${pkg.importName}.preflight`,
    '```',
    '',
    'The profile is `{"engine", "version", "env": {NAME: "value"}, "config": {...}}`, config keyed by the engine\'s own attribute paths. Exit 0: accepted; 3: rejected, with a JSON verdict naming each failing rejection contract, its justification, message and reopening gate; 2: the profile cannot be read. The adapter runs the same checks at start-up on the live engine, before any cache connection.',
    '',
    '## Rejected profiles',
    '',
    '| contract | unsupported | instead |',
    '|---|---|---|',
    ...rejections.map((r) => `| \`${r.id}\` | ${cell(r.message)} | ${cell(r.instead)} |`),
  ];
  if (hooks.length) {
    lines.push('', '## Guarded hooks', '', `Registered only when ${product} is selected, each after checking the engine pin, the target, that nothing outside the engine patched it and that its signature is compatible for the hook type; SGLang applies them after every plugin ran, and each is verified before the first Manager connection.`, '', '| contract | target | type | installed |', '|---|---|---|---|');
    for (const h of hooks) {
      const when = h.activation.mode === 'always' ? 'always' : `when ${(h.activation.switches ?? []).map((s) => `\`${s.env}=${cell(s.value)}\``).join(' or ')}`;
      lines.push(`| \`${h.id}\` | \`${h.target}\` | ${h.hookType} | ${when} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
