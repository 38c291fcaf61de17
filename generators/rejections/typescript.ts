import {
  type CodeBlockWriter, type FunctionDeclarationStructure, type InterfaceDeclarationStructure, type OptionalKind, type PropertySignatureStructure,
  type StatementStructures, type TypeAliasDeclarationStructure, type WriterFunction, Project, StructureKind, VariableDeclarationKind, ts,
} from 'ts-morph';
import type { RejectionTable } from './plan.js';
import { asciiJson } from '../python/index.js';
import { placeholder, spliceRejectionData } from './splice.js';
import { ENV_PARSINGS, type EnvParsing } from './profile.js';

/**
 * The header every generated TypeScript file starts with. The product's name goes in as ASCII
 * JSON with `/` escaped, so no name can end the comment.
 */
function header(product: string): string {
  const name = asciiJson(product).replace(/\//g, '\\/');
  return `/**
 * Rejection checks of ${name}, generated from its rejection and engine contracts; do not edit.
 * The Manager evaluates a handshake's engine profile with \`evaluate\`.
 *
 * Predicate semantics, identical to the generated Python module (\`<package>/rejections.py\`):
 * - a fact is an environment variable (a string), a config path or the engine version; config
 *   paths are dotted and resolve through nested objects; a fact that does not resolve, or
 *   resolves to null, is absent;
 * - when the engine's adapter names a fallback root (\`PROFILES[engine].fallbackRoot\`), a
 *   config path whose first segment is not a root of the profile is looked up under that root;
 * - an environment variable the engine reads in a normalised way (\`PROFILES[engine].envParsing\`,
 *   e.g. strip-lower: Python's \`str.strip().lower()\`) is normalised the same way first;
 * - the engine pin matches by PEP 440 version equality with the local part ignored
 *   (0.5.21+cu128 is 0.5.21; 0.5.21.0 is 0.5.21; 0.5.21rc1 is not);
 * - \`equals\` / \`not-equals\` compare strictly (same type class: boolean, number, string); an
 *   absent fact is not equal, so \`not-equals\` holds on an absent fact;
 * - \`in\` / \`not-in\`: strict membership in \`values\`; \`not-in\` holds on an absent fact;
 * - \`present\` / \`absent\`: the fact resolves to a non-null value;
 * - \`truthy\`: present and not false, 0, "", an empty array or an empty object;
 * - \`count-greater-than\`: an array or object with more than \`value\` entries;
 * - \`version-less-than\` / \`version-at-least\`: PEP 440 order (epoch, release with trailing
 *   zeros ignored, pre-release a < b < rc, post, dev, then the local part; a \`v\` prefix and the
 *   alternative spellings are accepted); a side that is not a PEP 440 version does not hold;
 * - \`all\` (empty: holds), \`any\` (empty: does not hold), \`not\`.
 */
`;
}

/**
 * Each env parsing as a JavaScript expression over \`value\`, equal to what the engine's Python
 * does (typed by \`EnvParsing\`, so a new parsing cannot be left out here).
 */
const ENV_PARSING_JS: Readonly<Record<EnvParsing, string>> = {
  'strip-lower': "value.replace(PY_SPACE, '').toLowerCase()",
};

/** A property signature: `name?: type`. */
function prop(name: string, type: string, optional = false): OptionalKind<PropertySignatureStructure> {
  return { name, type, hasQuestionToken: optional };
}

function iface(name: string, properties: OptionalKind<PropertySignatureStructure>[], docs?: string): InterfaceDeclarationStructure {
  return { kind: StructureKind.Interface, name, isExported: true, properties, ...(docs ? { docs: [docs] } : {}) };
}

function alias(name: string, type: string | WriterFunction, docs?: string): TypeAliasDeclarationStructure {
  return { kind: StructureKind.TypeAlias, name, isExported: true, type, ...(docs ? { docs: [docs] } : {}) };
}

/** The operators the evaluator implements (and the type of `Leaf.op`): one list, the switch in `holds` covers each. */
const OPERATORS = ['equals', 'not-equals', 'in', 'not-in', 'present', 'absent', 'truthy', 'count-greater-than', 'version-less-than', 'version-at-least'] as const;

/** A union type of string literals. */
const literals = (values: readonly string[]) => values.map((v) => `'${v}'`).join(' | ');

/** The module's types: the data it embeds, the profile it reads and the verdict it returns. */
function typeDeclarations(): StatementStructures[] {
  return [
    alias('FactValue', 'string | number | boolean'),
    alias('PredicateOperator', literals(OPERATORS)),
    iface('Leaf', [prop('env', 'string', true), prop('config', 'string', true), prop('version', "'engine'", true), prop('op', 'PredicateOperator'), prop('value', 'FactValue', true), prop('values', 'FactValue[]', true)], 'A predicate over one fact.'),
    alias('Predicate', 'Leaf | { all: Predicate[] } | { any: Predicate[] } | { not: Predicate }'),
    iface('GateStep', [prop('contract', 'string'), prop('upstream', '{ upstream?: string; requires: string }[]'), prop('gates', 'string[]')], 'One step of a reopening gate: a contract, its upstream conditions, the gates that must pass.'),
    iface('PinData', [prop('contract', 'string'), prop('engine', 'string'), prop('distribution', 'string'), prop('version', 'string')]),
    iface('RejectionData', [prop('id', 'string'), prop('engine', 'string'), prop('title', 'string'), prop('when', 'Predicate'), prop('message', 'string'), prop('instead', 'string'), prop('justifiedBy', 'string[]'), prop('gate', 'GateStep[]')]),
    iface('EngineProfile', [prop('engine', 'string'), prop('version', 'string'), prop('env', '{ [name: string]: string }'), prop('config', '{ [root: string]: unknown }')], 'A handshake profile, keyed by the engine\'s attribute paths.'),
    iface('VerdictEntry', [prop('id', 'string'), prop('justifiedBy', 'string[]'), prop('message', 'string'), prop('instead', 'string'), prop('gate', 'GateStep[]')]),
    iface('PinVerdict', [prop('contract', 'string'), prop('pinned', 'string'), prop('found', 'string'), prop('matches', 'boolean')]),
    iface('Verdict', [prop('engine', 'string'), prop('accepted', 'boolean'), prop('pin', 'PinVerdict | null'), prop('rejections', 'VerdictEntry[]')]),
    alias('Fact', 'unknown', 'A fact as read from a profile, or ABSENT.'),
    alias('EnvParsing', literals(ENV_PARSINGS)),
    iface('ProfileRules', [prop('fallbackRoot', 'string', true), prop('envParsing', '{ [name: string]: EnvParsing }', true)], 'How an engine reads its profile: the root other first config segments resolve under; env values it normalises.'),
    iface('VersionKey', [prop('head', 'number[]'), prop('release', 'number[]'), prop('rest', 'number[]'), prop('local', '(number | string)[]')], 'A PEP 440 version as sort keys: epoch; release; pre-release rank and number, post, dev; local segments.'),
  ];
}

type Body = (writer: CodeBlockWriter) => void;

function fn(name: string, parameters: [string, string][], returnType: string, body: Body, options: { exported?: boolean; docs?: string } = {}): FunctionDeclarationStructure {
  return {
    kind: StructureKind.Function,
    name,
    isExported: options.exported ?? false,
    parameters: parameters.map(([n, type]) => ({ name: n, type })),
    returnType,
    statements: [body],
    ...(options.docs ? { docs: [options.docs] } : {}),
  };
}

/** `if (condition) return value;` */
const guard = (w: CodeBlockWriter, condition: string, value: string) => w.writeLine(`if (${condition}) return ${value};`);
/** A `for (head) { … }` block. */
const loop = (w: CodeBlockWriter, head: string, inner: Body) => w.write(`for (${head}) `).block(() => inner(w));

/** The evaluator: the same semantics as the generated Python module (see the header). */
function functionDeclarations(): StatementStructures[] {
  const absent = 'ABSENT';
  const cases: [typeof OPERATORS[number], Body][] = [
    ['equals', (w) => w.writeLine(`return value !== ${absent} && same(value, predicate.value);`)],
    ['not-equals', (w) => w.writeLine(`return !(value !== ${absent} && same(value, predicate.value));`)],
    ['in', (w) => w.writeLine(`return value !== ${absent} && values.some((v) => same(value, v));`)],
    ['not-in', (w) => w.writeLine(`return !(value !== ${absent} && values.some((v) => same(value, v)));`)],
    ['present', (w) => w.writeLine(`return value !== ${absent};`)],
    ['absent', (w) => w.writeLine(`return value === ${absent};`)],
    ['truthy', (w) => w.writeLine('return truthy(value);')],
    ['count-greater-than', (w) => {
      w.writeLine(`const size = value === ${absent} ? undefined : sized(value);`);
      w.writeLine("return size !== undefined && typeof predicate.value === 'number' && size > predicate.value;");
    }],
    ['version-less-than', (w) => w.writeLine('return compareVersions(value, predicate.value) === -1;')],
    ['version-at-least', (w) => {
      w.writeLine('const c = compareVersions(value, predicate.value);');
      w.writeLine('return c === 0 || c === 1;');
    }],
  ];
  return [
    fn('own', [['object', 'object'], ['key', 'string']], 'boolean', (w) => w.writeLine('return Object.prototype.hasOwnProperty.call(object, key);')),
    fn('resolve', [['root', 'unknown'], ['path', 'string']], 'Fact', (w) => {
      w.writeLine('let current: unknown = root;');
      loop(w, "const segment of path.split('.')", () => {
        guard(w, "current === null || current === undefined || typeof current !== 'object' || Array.isArray(current)", absent);
        guard(w, '!own(current, segment)', absent);
        w.writeLine('current = (current as Record<string, unknown>)[segment];');
      });
      w.writeLine(`return current === null || current === undefined ? ${absent} : current;`);
    }, { exported: true, docs: 'The value at a dotted path through nested objects; ABSENT when it does not resolve or is null.' }),
    fn('rulesOf', [['engine', 'unknown']], 'ProfileRules', (w) => w.writeLine("return typeof engine === 'string' && own(PROFILES, engine) ? PROFILES[engine]! : {};"),
      { docs: 'The profile rules of an engine (none when its adapter declares none).' }),
    fn('rootOf', [['config', 'unknown'], ['name', 'string']], 'Fact', (w) => {
      guard(w, "config === null || typeof config !== 'object' || Array.isArray(config) || !own(config, name)", absent);
      w.writeLine('const value = (config as Record<string, unknown>)[name];');
      w.writeLine(`return value === null || value === undefined ? ${absent} : value;`);
    }),
    fn('resolveConfig', [['rules', 'ProfileRules'], ['config', 'unknown'], ['path', 'string']], 'Fact', (w) => {
      w.writeLine('const fallback = rules.fallbackRoot;');
      w.writeLine("const first = path.split('.')[0]!;");
      guard(w, `fallback !== undefined && fallback !== '' && first !== fallback && rootOf(config, first) === ${absent}`, 'resolve(rootOf(config, fallback), path)');
      w.writeLine('return resolve(config, path);');
    }, { exported: true, docs: "A config path over a profile's roots; a first segment that is not a root resolves under the engine's fallback root." }),
    fn('readEnv', [['rules', 'ProfileRules'], ['name', 'string'], ['value', 'string']], 'string', (w) => {
      w.writeLine('const parsing = rules.envParsing !== undefined && own(rules.envParsing, name) ? rules.envParsing[name] : undefined;');
      for (const parsing of ENV_PARSINGS) guard(w, `parsing === '${parsing}'`, ENV_PARSING_JS[parsing]);
      w.writeLine('return value;');
    }, { exported: true, docs: 'An environment value as the engine reads it (its envParsing), or unchanged.' }),
    fn('fact', [['leaf', 'Leaf'], ['profile', 'EngineProfile']], 'Fact', (w) => {
      w.writeLine('const rules = rulesOf(profile.engine);');
      w.write('if (leaf.env !== undefined) ').block(() => {
        w.writeLine('const env: { [name: string]: unknown } = profile.env ?? {};');
        w.writeLine('const value = own(env, leaf.env) ? env[leaf.env] : undefined;');
        w.writeLine(`return typeof value === 'string' ? readEnv(rules, leaf.env, value) : ${absent};`);
      });
      guard(w, 'leaf.config !== undefined', 'resolveConfig(rules, profile.config, leaf.config)');
      w.writeLine(`return typeof profile.version === 'string' ? profile.version : ${absent};`);
    }),
    fn('kind', [['value', 'unknown']], "'bool' | 'number' | 'string' | undefined", (w) => {
      for (const [js, name] of [['boolean', 'bool'], ['number', 'number'], ['string', 'string']]) guard(w, `typeof value === '${js}'`, `'${name}'`);
      w.writeLine('return undefined;');
    }),
    fn('same', [['a', 'unknown'], ['b', 'unknown']], 'boolean', (w) => {
      w.writeLine('const k = kind(a);');
      w.writeLine('return k !== undefined && k === kind(b) && a === b;');
    }),
    fn('sized', [['value', 'unknown']], 'number | undefined', (w) => {
      guard(w, 'Array.isArray(value)', 'value.length');
      guard(w, "value !== null && typeof value === 'object'", 'Object.keys(value).length');
      w.writeLine('return undefined;');
    }),
    fn('truthy', [['value', 'Fact']], 'boolean', (w) => {
      guard(w, `value === ${absent}`, 'false');
      w.writeLine('const size = sized(value);');
      guard(w, 'size !== undefined', 'size > 0');
      w.writeLine('return Boolean(value);');
    }),
    fn('version', [['value', 'unknown']], 'VersionKey | undefined', (w) => {
      guard(w, "typeof value !== 'string'", 'undefined');
      w.writeLine('const m = VERSION.exec(value);');
      guard(w, '!m', 'undefined');
      w.writeLine('const [, epoch, release, preL, preN, postDash, postL, postN, devL, devN, local] = m;');
      w.writeLine("const numbers = release!.split('.').map(Number);");
      w.writeLine('while (numbers.length > 1 && numbers[numbers.length - 1] === 0) numbers.pop();');
      w.writeLine('const pre = preL ? [PRE_RANK[preL.toLowerCase()]!, Number(preN ?? 0)] : devL && postDash === undefined && !postL ? [-1, 0] : [3, 0];');
      w.writeLine('const post = postDash !== undefined ? Number(postDash) : postL ? Number(postN ?? 0) : -1;');
      w.writeLine('const dev = devL ? Number(devN ?? 0) : Infinity;');
      w.writeLine("const segments = local ? local.toLowerCase().split(/[-_.]/).map((s) => (/^[0-9]+$/.test(s) ? Number(s) : s)) : [];");
      w.writeLine('return { head: [Number(epoch ?? 0)], release: numbers, rest: [...pre, post, dev], local: segments };');
    }, { docs: 'The PEP 440 sort key of a version string, or undefined when it is not one.' }),
    fn('compareLists', [['a', 'readonly (number | string)[]'], ['b', 'readonly (number | string)[]'], ['pad', 'boolean']], 'number', (w) => {
      loop(w, 'let i = 0; i < Math.max(a.length, b.length); i++', () => {
        // Missing release components count as 0; a missing local segment sorts first.
        w.writeLine('const x = i < a.length ? a[i] : pad ? 0 : undefined;');
        w.writeLine('const y = i < b.length ? b[i] : pad ? 0 : undefined;');
        guard(w, 'x === undefined || y === undefined', 'x === undefined ? -1 : 1');
        w.writeLine('if (x === y) continue;');
        // A numeric local segment sorts after an alphanumeric one.
        guard(w, 'typeof x !== typeof y', "typeof x === 'number' ? 1 : -1");
        w.writeLine('return x < y ? -1 : 1;');
      });
      w.writeLine('return 0;');
    }),
    fn('compareVersions', [['a', 'unknown'], ['b', 'unknown']], 'number | undefined', (w) => {
      w.writeLine('const x = version(a);');
      w.writeLine('const y = version(b);');
      guard(w, '!x || !y', 'undefined');
      w.writeLine('return compareLists(x.head, y.head, true) || compareLists(x.release, y.release, true) || compareLists(x.rest, y.rest, false) || (x.local.length ? 1 : 0) - (y.local.length ? 1 : 0) || compareLists(x.local, y.local, false);');
    }),
    fn('pinMatches', [['found', 'unknown'], ['pinned', 'unknown']], 'boolean', (w) => {
      w.writeLine('const x = version(found);');
      w.writeLine('const y = version(pinned);');
      w.writeLine('return x !== undefined && y !== undefined && compareLists(x.head, y.head, true) === 0 && compareLists(x.release, y.release, true) === 0 && compareLists(x.rest, y.rest, false) === 0;');
    }, { exported: true, docs: 'Whether a found engine version is the pinned one: PEP 440 equality, local part ignored.' }),
    fn('holds', [['predicate', 'Predicate'], ['profile', 'EngineProfile']], 'boolean', (w) => {
      guard(w, "'all' in predicate", 'predicate.all.every((p) => holds(p, profile))');
      guard(w, "'any' in predicate", 'predicate.any.some((p) => holds(p, profile))');
      guard(w, "'not' in predicate", '!holds(predicate.not, profile)');
      w.writeLine('const value = fact(predicate, profile);');
      w.writeLine('const values = predicate.values ?? [];');
      w.write('switch (predicate.op) ').block(() => {
        for (const [op, body] of cases) w.write(`case '${op}': `).block(() => body(w));
      });
    }, { exported: true, docs: 'Whether a rejection predicate holds over a profile (semantics in the header).' }),
    fn('evaluate', [['profile', 'EngineProfile']], 'Verdict', (w) => {
      w.writeLine('const candidate = PINS.find((p) => p.engine === profile.engine);');
      w.writeLine('const pin = candidate ? { contract: candidate.contract, pinned: candidate.version, found: profile.version, matches: pinMatches(profile.version, candidate.version) } : null;');
      w.writeLine('const rejections = REJECTIONS.filter((r) => r.engine === profile.engine && holds(r.when, profile))');
      w.indent().write('.map((r) => ({ id: r.id, justifiedBy: [...r.justifiedBy], message: r.message, instead: r.instead, gate: r.gate }));').newLine();
      w.writeLine('return { engine: profile.engine, accepted: pin !== null && pin.matches && rejections.length === 0, pin, rejections };');
    }, { exported: true, docs: 'The verdict for a profile: the pin check and every rejection that holds, in id order.' }),
    fn('profileProblem', [['profile', 'unknown']], 'string | undefined', (w) => {
      guard(w, "profile === null || typeof profile !== 'object' || Array.isArray(profile)", "'the profile must be a JSON object'");
      w.writeLine('const p = profile as Record<string, unknown>;');
      guard(w, "typeof p.engine !== 'string'", `'the profile needs "engine": a string'`);
      guard(w, "typeof p.version !== 'string'", `'the profile needs "version": a string'`);
      w.writeLine('const env = p.env === undefined ? {} : p.env;');
      guard(w, "env === null || typeof env !== 'object' || Array.isArray(env) || !Object.values(env).every((v) => typeof v === 'string')", `'"env" must be an object of strings'`);
      w.writeLine('const config = p.config === undefined ? {} : p.config;');
      guard(w, "config === null || typeof config !== 'object' || Array.isArray(config)", `'"config" must be an object'`);
      w.writeLine('return undefined;');
    }, { exported: true, docs: 'Why a handshake profile is malformed (same rules as the Python preflight), or undefined.' }),
    fn('describeStep', [['step', 'GateStep']], 'string', (w) => {
      w.writeLine("const upstream = step.upstream.length ? step.upstream.map((u) => u.requires + (u.upstream ? ` (${u.upstream})` : '')).join('; ') : 'no upstream change';");
      w.writeLine("return `${step.contract}: ${upstream}${step.gates.length ? `, then gates ${step.gates.join(', ')} pass` : ''}`;");
    }),
    fn('describe', [['entry', 'VerdictEntry']], 'string', (w) => {
      w.writeLine("const gate = entry.gate.length === 0 ? 'No reopening gate is recorded: this stays unsupported.' : `Reopening gate: ${entry.gate.map(describeStep).join(' | ')}.`;");
      w.writeLine("return `${PRODUCT} rejection ${entry.id}: ${entry.message}. Instead: ${entry.instead}. Justified by: ${entry.justifiedBy.join(', ')}. ${gate}`;");
    }, { exported: true, docs: 'One rejection as text: contract, what is unsupported, what instead, its reopening gate.' }),
  ];
}

/**
 * The module's text with ts-morph's structure API: type aliases and interfaces, the data
 * constants with a placeholder each for their JSON initializers (JSON is valid TypeScript, so
 * contract text stays data; `spliceRejectionData` fills them, so their size never goes through
 * ts-morph's AST manipulation), and the evaluator's functions, written statement by statement.
 * The same for every registry: only the spliced data differs.
 */
export function rejectionModuleTemplate(): string {
  const project = new Project({ useInMemoryFileSystem: true, skipFileDependencyResolution: true });
  const file = project.createSourceFile('rejections.ts', '', { overwrite: true });
  const constant = (name: string, type: string, initializer: string, exported: boolean): StatementStructures => ({
    kind: StructureKind.VariableStatement,
    isExported: exported,
    declarationKind: VariableDeclarationKind.Const,
    declarations: [{ name, type, initializer }],
  });
  file.addStatements([
    ...typeDeclarations(),
    constant('PRODUCT', 'string', placeholder('PRODUCT'), true),
    constant('PROFILES', '{ readonly [engine: string]: ProfileRules }', placeholder('PROFILES'), true),
    constant('PINS', 'readonly PinData[]', placeholder('PINS'), true),
    constant('REJECTIONS', 'readonly RejectionData[]', placeholder('REJECTIONS'), true),
    constant('ABSENT', 'unique symbol', "Symbol('absent')", false),
    constant('VERSION', 'RegExp', String.raw`/^\s*v?(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*)(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?(?:[-_.]?(dev)[-_.]?([0-9]+)?)?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$/i`, false),
    // Python's str.isspace() set, which str.strip() removes (JavaScript's trim() differs: it keeps \x1c-\x1f and \x85, removes \ufeff).
    constant('PY_SPACE', 'RegExp', String.raw`/^[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g`, false),
    constant('PRE_RANK', '{ [label: string]: number }', "{ alpha: 0, a: 0, beta: 1, b: 1, c: 2, rc: 2, pre: 2, preview: 2 }", false),
    ...functionDeclarations(),
  ]);
  return file.getFullText().replace(/\r\n/g, '\n').trimEnd();
}

/** Emits `rejections.ts`: the header, then the module's text with the registry's data spliced in. */
export function emitTypescriptRejections(table: RejectionTable): string {
  return `${header(table.product.name)}${spliceRejectionData(rejectionModuleTemplate(), table)}\n`;
}

/**
 * The module as JavaScript with its data placeholders kept (what the Manager loads, with the
 * registry's data spliced in): the template transpiled, comments dropped.
 */
export function rejectionModuleJs(): string {
  return ts.transpileModule(rejectionModuleTemplate(), { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, removeComments: true } }).outputText;
}
