import type { CommitSha, ContractBase, ContractId, EngineName, IsoDate, ReleaseLine, Version } from './common.js';

/** Why no upstream change is needed (DEP-3 `Forwarded: not-needed`), from a fixed list. */
export type NotNeededReason =
  /** An official interface that already exists covers it; the adapter consumes that instead. */
  | 'covered-by-released-interface'
  /** It only fed optional telemetry; engine metrics are the evidence source. */
  | 'optional-telemetry'
  /** The optimization it served is dropped instead of replaced. */
  | 'optimization-dropped'
  /** The behaviour belongs to the cache, not the engine. */
  | 'cache-owned'
  /** The profile it served is rejected instead of supported. */
  | 'profile-rejected';

/** No upstream replacement exists or is proposed. */
export interface ReplacementNone {
  status: 'none';
  /** What an upstream replacement would have to provide. */
  needed: string;
}

/** An upstream change is proposed (an open PR). */
export interface ReplacementProposed {
  status: 'proposed';
  /** The `upstream` contract tracking the PR. */
  upstream: ContractId;
}

/** Merged on the engine's main branch: not yet in a release. Merged is not released. */
export interface ReplacementMerged {
  status: 'merged';
  /** The `upstream` contract tracking the PR. */
  upstream: ContractId;
  /** The merge commit. */
  commit: CommitSha;
}

/** Released: a published version on a release line contains it. */
export interface ReplacementReleased {
  status: 'released';
  /** The `upstream` contract tracking the PR (omit when the replacement predates tracking). */
  upstream?: ContractId;
  /** The release line that contains it. */
  line: ReleaseLine;
  /** The first version on that line that contains it. */
  version: Version;
}

/** No upstream change is needed, for a reason from a fixed list. */
export interface ReplacementNotNeeded {
  status: 'not-needed';
  /** Why. */
  reason: NotNeededReason;
  /** The official interface or contract that makes it unnecessary, when there is one. */
  coveredBy?: ContractId[];
}

/**
 * An official replacement's status, typed like Debian DEP-3's `Forwarded` / `Applied-Upstream`:
 * none / proposed (PR) / merged (PR, commit) / released (line, version) / not-needed (reason).
 */
export type UpstreamStatus = ReplacementNone | ReplacementProposed | ReplacementMerged | ReplacementReleased | ReplacementNotNeeded;

/** State of an upstream pull request as last checked. */
export type PullRequestState = 'open' | 'merged' | 'closed';

/** A release that contains a change. */
export interface ReleaseContaining {
  /** The release line (`0.30`). */
  line: ReleaseLine;
  /** The first version on that line containing the change. */
  version: Version;
  /** The release date, when known. */
  date?: IsoDate;
}

/** A tracked upstream change: a pull request against an engine. */
export interface UpstreamContract extends ContractBase {
  kind: 'upstream';
  /** The engine whose repository the change targets. */
  engine: EngineName;
  /**
   * The pull request number.
   * @minimum 1
   * @TJS-type integer
   */
  pr: number;
  /** State as of `checked`. */
  state: PullRequestState;
  /** The merge commit, once merged. */
  mergeCommit?: CommitSha;
  /** The merge date, once merged. */
  mergedOn?: IsoDate;
  /** Releases that contain it, per release line. Empty while unreleased. */
  releasedIn: ReleaseContaining[];
  /** When the state was last checked against the engine's repository. */
  checked: IsoDate;
  /** What the change does for the cache. */
  purpose: string;
}
