/**
 * The compact symbol table a worker sends back for one Python file: what verification needs
 * (definitions, parameters, calls in order, compared string literals, annotations), never the tree.
 * Plain data, so it crosses `postMessage` by structured clone.
 */

/** 1-based line and column, like editors show. */
export interface SourcePoint {
  line: number;
  col: number;
}

/** One parameter as written, before any binding normalisation. */
export interface ParsedParameter {
  name: string;
  kind: 'positional-only' | 'positional-or-keyword' | 'var-positional' | 'keyword-only' | 'var-keyword';
  /** The default's source text, when there is one. */
  default?: string;
  /** The annotation's source text, when there is one. */
  annotation?: string;
}

/**
 * One condition a call depends on inside its function: the test of an enclosing `if` / `elif`
 * / conditional expression / `and`-`or` operand (`negated` on the `else` side or for `if not X`),
 * or a loop, `except` handler or `case` whose body may not run (`kind` says which).
 */
export interface CallGuard {
  kind: 'if' | 'loop' | 'except' | 'case';
  /** The test's source text, `not` stripped (for loops: the header, for handlers: the caught type). */
  condition: string;
  /** True on the branch where the test is false. */
  negated: boolean;
}

/** A call inside a function body, in (approximate) evaluation order: a call completes after its arguments. */
export interface CallSite extends SourcePoint {
  /** Last dotted component of the callee (`pre_forward` for `self.kv.pre_forward(...)`). */
  name: string;
  /** The callee's object as written (`self`, `cls`, `kv_cache_builder`, `self.kv`), absent for a bare name. */
  receiver?: string;
  /** The conditions the call runs under, outermost first; empty when it runs whenever the function body does. */
  guards: CallGuard[];
}

/** A CLI flag defined by a call to `add_argument('--flag', ...)`. */
export interface FlagSite extends SourcePoint {
  flag: string;
}

/** A string literal a function compares against, tests membership in, matches or returns. */
export interface LiteralSite extends SourcePoint {
  value: string;
}

interface DefinitionBase extends SourcePoint {
  /** `name`, `Class.method`, `Class.Nested.attr`: the path from the module scope. */
  qualname: string;
  /** Defined under `if` / `try` / `with` / a loop at its scope level: existence depends on run time. */
  conditional: boolean;
  /** Defined inside an `except` handler (a fallback that holds only when the `try` failed). */
  inExcept?: true;
  /** Source offsets (UTF-16), to relate parse errors to definitions. */
  start: number;
  end: number;
}

export interface ClassDefinition extends DefinitionBase {
  kind: 'class';
  /** Base class expressions' source text, subscripts stripped (`Generic[T]` → `Generic`). */
  bases: string[];
  decorators: string[];
}

export interface FunctionDefinition extends DefinitionBase {
  kind: 'function';
  async: boolean;
  decorators: string[];
  parameters: ParsedParameter[];
  returns?: string;
  /** Whether `calls` were read: for the functions an assertion scopes, and helpers read on demand. */
  bodyRead: boolean;
  /** Calls in the body, in evaluation order (empty until the body is read). */
  calls: CallSite[];
  /** Compared, matched or returned string literals, for the same functions. */
  literals: LiteralSite[];
  /** `self.X = ...` targets in the body (for `__init__`: instance attributes). */
  selfAttributes: string[];
}

/** `name = value`, `name: T = value`, `name: T` at module or class level. */
export interface AssignmentDefinition extends DefinitionBase {
  kind: 'assignment';
  /** The assigned value's source text (absent for a bare annotation). */
  value?: string;
  annotation?: string;
  /** For `field(default=...)` / `field(default_factory=...)` values: the `default=` argument's text. */
  fieldDefault?: string;
}

/** `from M import N as A` / `import M as A` at module level. */
export interface ImportDefinition extends DefinitionBase {
  kind: 'import';
  /** The module as written, relative dots included (`.scheduler`, `sglang.srt.utils`). */
  module: string;
  /** The imported name for `from` imports; absent for `import M as A` (the alias is the module). */
  name?: string;
  /** `from M import *`. */
  star?: boolean;
}

export type Definition = ClassDefinition | FunctionDefinition | AssignmentDefinition | ImportDefinition;

/** A hit of a searched-for literal (env var, CLI flag, entry-point group) anywhere in the file. */
export interface NeedleHit extends SourcePoint {
  needle: string;
}

/** What scanning one file produced. */
export interface FileScan {
  /** Path relative to the checkout root, `/`-separated. */
  file: string;
  /** `parsed` (possibly with syntax errors), or why it was skipped. */
  status: 'parsed' | 'binary' | 'too-large' | 'unreadable';
  bytes: number;
  /** sha256 of exactly the bytes parsed; absent when the file was not read. */
  sha256?: string;
  /** Why reading failed, for `unreadable`. */
  reason?: string;
  /** ERROR and MISSING nodes (the first few); the rest of the file is still used. */
  syntaxErrors: SourcePoint[];
  /** Error node offsets matching `syntaxErrors`, to tell which definitions they touch. */
  errorOffsets: number[];
  /** Definitions at module level and inside classes, in source order. */
  definitions: Definition[];
  /** Literal needles found inside string literals. */
  needles: NeedleHit[];
  /** CLI flags this file defines through `add_argument`. */
  flags: FlagSite[];
}
