/** How a Python parameter binds, as `inspect.Parameter.kind` names it. */
export type ParameterKind = 'positional-only' | 'positional-or-keyword' | 'var-positional' | 'keyword-only' | 'var-keyword';

/** One parameter of an expected Python signature. */
export interface SignatureParameter {
  /** The parameter's name (`self` included for methods). */
  name: string;
  /** How it binds; `positional-or-keyword` when omitted in YAML is not allowed: say it. */
  kind: ParameterKind;
  /** Whether the parameter has a default value. */
  hasDefault: boolean;
  /** The default's source text when it matters to the contract (e.g. `False`). */
  default?: string;
}

/**
 * The expected signature of a hook target or consumed callable, normalised like
 * `inspect.signature`. Source verification compares it with the checkout; the generated
 * installers fingerprint it at run time.
 */
export interface Signature {
  /** Parameters in declaration order. */
  parameters: SignatureParameter[];
  /** The return annotation's source text, when the contract depends on it. */
  returns?: string;
  /** Whether the callable is `async def`. */
  async?: boolean;
}
