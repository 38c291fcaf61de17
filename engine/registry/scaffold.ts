import type { ContractKind } from '../model/index.js';
import { modelineFor } from './modeline.js';
import type { Registry } from './registry.js';

/** The marker `orbitkv new` leaves wherever a person must decide; the `placeholder` rule lists each one. */
export const PLACEHOLDER = 'FILL';

export interface ScaffoldOptions {
  /** The engine the contract is about; default: the registry's first runtime engine. */
  engine?: string;
  /** `YYYY-MM-DD` for date fields. */
  today: string;
}

/**
 * The text of a new, schema-valid contract of `kind` with the modeline first and keys in
 * canonical order. Free text holds `FILL: what to write`; values the schema constrains (ids,
 * versions, dates) hold a valid value with a `# FILL:` comment, and references point at real
 * contracts of the right kind when the registry has them. `orbitkv validate` then lists every
 * marker with its position.
 *
 * @example scaffoldContract('hook', 'hook.vllm.new-target', registry, { today: '2026-11-29' })
 */
export function scaffoldContract(kind: ContractKind, id: string, file: string, registry: Registry, options: ScaffoldOptions): string {
  const engine = options.engine ?? registry.ofKind('engine').find((e) => e.role === 'runtime')?.name ?? 'fill-engine';
  const firstOf = (k: ContractKind, placeholder: string, match: (c: { engine?: string }) => boolean = () => true) =>
    registry.contracts.find((c) => c.kind === k && match(c as { engine?: string }))?.id ?? placeholder;
  const sameEngine = (c: { engine?: string }) => c.engine === engine;
  const gate = firstOf('gate', 'gate.fill-me');
  const head = [
    modelineFor(kind, file),
    `kind: ${kind}`,
    `id: ${id}`,
    `title: '${PLACEHOLDER}: one line a reader of the board understands'`,
    'source:',
    `  document: '${PLACEHOLDER}: the audit document (or recheck) this comes from'`,
    `  section: '${PLACEHOLDER}: the section heading within it'`,
  ];
  const body: Record<ContractKind, () => string[]> = {
    engine: () => {
      const name = options.engine ?? /^engine\.([a-z][a-z0-9_-]*)$/.exec(id)?.[1] ?? 'fill-engine';
      return [
        `name: ${name}`,
        `distribution: ${name}`,
        'role: runtime',
        `version: 0.0.0 # ${PLACEHOLDER}: the exact version pinned`,
        `line: '0.0' # ${PLACEHOLDER}: the pinned version's major.minor`,
        `recordedIn: [] # ${PLACEHOLDER}: every other place the pin is recorded (package extra, submodule)`,
        `lastRecheck: ${options.today}`,
      ];
    },
    interface: () => [
      `engine: ${engine}`,
      `profile: '${PLACEHOLDER}: the boundary profile (ordinary-cache, pd-disaggregation)'`,
      'symbols:',
      `  - target: '${PLACEHOLDER}: the dotted path, entry-point group, CLI flag or env var consumed'`,
      `    kind: class # ${PLACEHOLDER}: class, function, method, attribute, entry-point-group, cli-flag or env-var`,
      `    role: '${PLACEHOLDER}: what the adapter uses it for'`,
      'ownership:',
      `  engine: '${PLACEHOLDER}: what the engine owns'`,
      `  cache: '${PLACEHOLDER}: what the cache owns'`,
      'delivery:',
      '  mode: best-effort',
      '  rules:',
      `    - '${PLACEHOLDER}: a rule the adapter and composition obey'`,
      'status: candidate',
      'qualifiedBy: []',
    ],
    hook: () => [
      `engine: ${engine}`,
      `# ${PLACEHOLDER}: the dotted target (module path, then class and method)`,
      `target: ${PLACEHOLDER}.module.Class.method`,
      'hookType: AROUND',
      'signature:',
      `  # ${PLACEHOLDER}: the target's parameters as inspect.signature reports them`,
      '  parameters:',
      '    - name: self',
      '      kind: positional-or-keyword',
      '      hasDefault: false',
      'protects:',
      `  text: '${PLACEHOLDER}: what breaks without it'`,
      `  lifecycles: [] # ${PLACEHOLDER}: the runtime lifecycles it guards`,
      'activation:',
      '  mode: always',
      'replacement:',
      '  status: none',
      `  needed: '${PLACEHOLDER}: what an upstream replacement would have to provide'`,
      'removalGate:',
      '  upstream:',
      `    - requires: '${PLACEHOLDER}: what must be released upstream, on the pinned line, and consumed'`,
      `  # ${PLACEHOLDER}: the gates that must pass before removal`,
      '  gates:',
      `    - ${gate}`,
      'disposition:',
      '  state: kept',
      `  reason: '${PLACEHOLDER}: why the official interfaces do not yet suffice'`,
    ],
    gap: () => [
      `engine: ${engine}`,
      'category: interface-gap',
      `# ${PLACEHOLDER}: the source fact that holds while the gap exists`,
      'assertion:',
      '  form: symbol',
      `  file: '${PLACEHOLDER}: path relative to the checkout root'`,
      `  symbol: '${PLACEHOLDER}: name, Class or Class.method'`,
      '  present: true',
      'consequence:',
      `  text: '${PLACEHOLDER}: what the gap forces'`,
      '  rejections: []',
      '  keepsHooks: []',
      'upstreamFix:',
      '  status: none',
      `  needed: '${PLACEHOLDER}: what the upstream fix must provide'`,
      'reopening:',
      '  upstream:',
      `    - requires: '${PLACEHOLDER}: what must be released before the restricted profiles reopen'`,
      `  # ${PLACEHOLDER}: the gates to pass afterwards`,
      '  gates:',
      `    - ${gate}`,
    ],
    rejection: () => [
      `engine: ${engine}`,
      `# ${PLACEHOLDER}: the profile predicate (env, config or version leaves; all / any / not)`,
      'when:',
      `  env: ${PLACEHOLDER}_ENV_VAR`,
      '  op: equals',
      "  value: '1'",
      `message: '${PLACEHOLDER}: what is unsupported'`,
      `instead: '${PLACEHOLDER}: what to select instead'`,
      `# ${PLACEHOLDER}: the gaps, hooks, interfaces or policies that justify it`,
      'justifiedBy:',
      `  - ${firstOf('gap', firstOf('policy', 'gap.fill-me'), sameEngine)}`,
      'facts:',
      `  - env.${PLACEHOLDER}_ENV_VAR`,
    ],
    gate: () => [
      'scenario:',
      '  runner: external',
      `  procedure: '${PLACEHOLDER}: what the run does, precisely enough to reproduce (or runner: orbitkv with a catalogued scenario)'`,
      'environment:',
      '  gpu: false',
      `qualifies: '${PLACEHOLDER}: what a pass qualifies (profile, tier, model class)'`,
      'evidence:',
      '  hashes: engine-and-adapter',
      '  independent: false',
    ],
    upstream: () => [
      `engine: ${engine}`,
      `pr: ${/\.(\d+)$/.exec(id)?.[1] ?? 1} # ${PLACEHOLDER}: the pull request number`,
      'state: open',
      'releasedIn: []',
      `checked: ${options.today}`,
      `purpose: '${PLACEHOLDER}: what the change does for the cache'`,
    ],
    policy: () => [
      'policy:',
      '  rule: statement',
      `  text: '${PLACEHOLDER}: the statement'`,
      '  enforcedBy: review',
    ],
  };
  return `${[...head, ...body[kind]()].join('\n')}\n`;
}
