import type { CommitSha, ContractBase, EngineName, EnvVarName, IsoDate, ReleaseLine, Version } from './common.js';

/** Why the engine is in the registry. */
export type EngineRole =
  /** The adapters run inside it: pinned exactly, its hooks and interfaces are contracts. */
  | 'runtime'
  /** A reference implementation checked for comparison only (never installed). */
  | 'reference';

/** One place where the pin is also recorded; the seed requires all of them to agree. */
export interface PinRecord {
  /** Where: the adapter package's extra, the source submodule, a lock file. */
  place: 'package-extra' | 'source-submodule' | 'lock-file' | 'container-image';
  /** The version recorded there. */
  version: Version;
  /** The commit recorded there, where the place records one. */
  commit?: CommitSha;
  /** A pointer a human can follow (`pyproject.toml [project.optional-dependencies] vllm`). */
  locator: string;
}

/** The newest release seen upstream, to say "pinned X, newest seen Y, recheck due". */
export interface NewestSeen {
  /** The newest non-prerelease version seen. */
  version: Version;
  /** When it was seen. */
  seenOn: IsoDate;
}

/** How the engine loads plugins, for the generated adapter package. */
export interface PluginLoading {
  /** The Python entry-point group the engine scans (`vllm.general_plugins`). */
  entryPointGroup: string;
  /** The environment variable that allowlists plugins by name. */
  allowlistEnv?: EnvVarName;
}

/** A pinned upstream engine (or a reference implementation checked for comparison). */
export interface EngineContract extends ContractBase {
  kind: 'engine';
  /** The engine's short name, referred to by every other contract. */
  name: EngineName;
  /** The Python distribution name (`vllm`, `sglang`). */
  distribution: string;
  /** Runtime pin or reference. */
  role: EngineRole;
  /** The exact version pinned (or, for a reference, the version checked). */
  version: Version;
  /** The commit that version was released from (40 hex digits). When it is not known, leave it out and say why in `commitUnknown`. */
  commit?: CommitSha;
  /**
   * Why the pinned version's commit is not recorded (for example, the release was installed from
   * a wheel whose commit was not published). The explicit form of an unknown commit: a
   * `pin.changed` then carries no commit either, and profiles are matched on the version alone.
   */
  commitUnknown?: string;
  /** The pinned version's release date. */
  released?: IsoDate;
  /** The release line the pin is on; upstream changes must be released on it to count. */
  line: ReleaseLine;
  /** Every other place the pin is recorded; validation checks they agree with `version` and `commit`. */
  recordedIn: PinRecord[];
  /** The newest release seen at the last recheck. */
  newestSeen?: NewestSeen;
  /** Release lines watched for upstream changes besides the pinned one. */
  trackedLines?: ReleaseLine[];
  /** The date of the last release recheck. */
  lastRecheck: IsoDate;
  /** Plugin loading, for runtime engines. */
  plugins?: PluginLoading;
  /** Where the checkout records its version (relative path, e.g. `vllm/version.py`), for source verification. */
  versionFile?: string;
  /** The top-level Python package (`vllm`, `sglang`), for source verification. */
  package?: string;
}
