/**
 * How an engine reads the facts its rejections look at, declared by its adapter template and
 * applied alike by the Python checks (preflight and live) and the TypeScript module (the
 * Manager's handshake), so every reader of a profile gives the same verdict.
 */

/** The ways an environment value can be normalised before it is compared, as the engine reads it. */
export const ENV_PARSINGS = ['strip-lower'] as const;
/** `strip-lower`: Python's `value.strip().lower()` (whitespace as `str.isspace` has it). */
export type EnvParsing = (typeof ENV_PARSINGS)[number];

export interface ProfileRules {
  /**
   * The root a config path's first segment is looked up under when that segment is not a root
   * of the profile (vLLM: `vllm_config`, whose attributes the live connector reads).
   */
  fallbackRoot?: string;
  /** Environment variables the engine normalises when it reads them, and how. */
  envParsing?: Readonly<Record<string, EnvParsing>>;
}
