import type { CommitSha, ContractId, EngineName, ReleaseLine, Version } from './common.js';
import type { PullRequestState } from './upstream.js';

/**
 * Evidence records: the append-only ledger (`contracts/evidence/ledger.jsonl`) that every
 * contract lifecycle is folded from. One JSON line per record; each line carries the previous
 * record's hash, so editing, reordering, removing or duplicating a line breaks the chain.
 */

/**
 * A lower-case sha256 digest in hex.
 * @pattern ^[0-9a-f]{64}$
 */
export type Sha256 = string;

/**
 * A UTC timestamp, `YYYY-MM-DDTHH:MM:SSZ` (milliseconds allowed).
 * @pattern ^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$
 */
export type IsoTimestamp = string;

/** One engine of a profile: the pin the evidence ran against. */
export interface EvidenceEnginePin {
  version: Version;
  /** The commit, where the engine contract pins one. */
  commit?: CommitSha;
}

/**
 * What a piece of evidence is bound to: the engine pins it ran on and the adapter package.
 * A pass counts only for this profile; a pin change sends it back to pending.
 */
export interface EvidenceProfile {
  /** Engine name → the pin it ran on. Every engine named must equal its current pin. */
  engines: Record<EngineName, EvidenceEnginePin>;
  /** sha256 of the adapter package (the wheel) the evidence ran with. */
  adapter?: Sha256;
}

/** Where transcribed evidence comes from (an audit section), when it was not recorded live. */
export interface EvidenceCitation {
  document: string;
  section: string;
}

/** Fields every record's data may carry. */
export interface EvidenceCommon {
  /** Where transcribed evidence comes from. */
  source?: EvidenceCitation;
  /** Free text for reviewers. */
  note?: string;
}

/** A release that contains an upstream change. */
export interface EvidenceRelease {
  line: ReleaseLine;
  version: Version;
}

/** The before/after digests of every frozen file (engine installation and adapter package). */
export interface RunHashes {
  before: Sha256;
  after: Sha256;
}

/**
 * Where a gate result ran. `stand-in`: an engine stand-in (the generated client driven by
 * `orbitkv gate run`) presenting the pinned versions of its profile, not the engine itself; it
 * never passes a gate whose evidence hashes the engine installation. `real`: the pinned engine.
 * A result without it is the claim of its actor (hand-recorded or transcribed evidence).
 */
export interface GateRunPlace {
  engine: 'stand-in' | 'real';
  /** The device it ran on (`cpu`, `gpu`). */
  device: string;
}

/** The data each record type carries, by type. */
export interface EvidenceDataByType {
  /** An upstream change's state as checked (subject: `upstream`). Checking it is a recheck of that upstream. */
  'upstream.state': { state: PullRequestState; commit?: CommitSha };
  /** A published release contains the upstream change (subject: `upstream`). */
  'upstream.released': EvidenceRelease;
  /** The engine pin moved (subject: `engine`). Every pass bound to the old pin goes back to pending. */
  'pin.changed': { version: Version; commit?: CommitSha };
  /** A release or upstream recheck (any subject). It records; it never authorizes anything. */
  recheck: { findings: string; authorizes: 'nothing' };
  /**
   * The adapter consumes the replacement named by one upstream condition (subject: `hook` or
   * `gap`). `condition` indexes the subject's `removalGate.upstream` / `reopening.upstream`.
   * Conditions without a tracked upstream contract carry the release here.
   */
  'adapter.consumed-replacement': { condition: number; release?: EvidenceRelease; adapterVersion: string };
  /** Source verification of a hook target (subject: `hook`). */
  'verify.target': { result: 'present' | 'missing' | 'signature-changed' | 'unresolvable-statically'; files: Record<string, Sha256> };
  /** Source verification of a gap's assertion (subject: `gap`). */
  'verify.assertion': { result: 'holds' | 'no-longer-holds' | 'unresolvable'; files: Record<string, Sha256> };
  /**
   * One gate cell's result (subject: `gate`). `cell` names a value per matrix axis (omit for a
   * one-cell gate). A pass counts toward removal only with equal before/after `hashes`;
   * `hashesKept` says where hashes recorded outside the ledger are kept (transcribed evidence).
   */
  'gate.result': { result: 'pass' | 'fail'; cell?: Record<string, string>; hashes?: RunHashes; hashesKept?: string; artifacts?: string; where?: GateRunPlace };
  /** An independent actor's verdict on the gate's passes on this profile (subject: `gate`). */
  'gate.acceptance': { verdict: 'accepted' | 'rejected' };
  /** The hook was removed from the adapter (subject: `hook`). Refused unless removable. */
  'hook.removed': { adapterVersion: string };
  /** An opt-in hook left by dropping its optimization (subject: `hook`). Refused unless the drop gates passed. */
  'optimization.dropped': { adapterVersion: string };
  /** A removed hook is installed again after a regression (subject: `hook`). */
  'hook.reinstated': { reason: string };
  /** The restricted profiles of a gap or a rejection are supported again (subject: `gap` or `rejection`). */
  'support.expanded': { adapterVersion: string };
}

/** Every record type. */
export type EvidenceType = keyof EvidenceDataByType;

/** A record of one type, as stored on its ledger line. */
export interface EvidenceRecordOf<T extends EvidenceType> {
  /** 1, 2, 3, … without gaps. */
  seq: number;
  /** When the evidence was recorded; never earlier than the previous record. */
  at: IsoTimestamp;
  /** Who recorded it (a person, a team, a CI job). */
  actor: string;
  type: T;
  /** The contract id it is about. */
  subject: ContractId;
  /** The profile it is bound to, for types that need one. */
  profile?: EvidenceProfile;
  data: EvidenceDataByType[T] & EvidenceCommon;
  /** The previous record's `hash`, or 64 zeros for the first record. */
  prev: Sha256;
  /**
   * An OpenSSH signature (SSHSIG, base64, namespace `evidence-ledger`) by a trusted signer's
   * ed25519 key over the record's canonical JSON without `signature` and `hash`; absent on
   * unsigned records (the embedded history).
   */
  signature?: string;
  /** sha256 of the record's canonical JSON without `hash`. */
  hash: Sha256;
}

/** Any evidence record, discriminated by `type`. */
export type EvidenceRecord = { [T in EvidenceType]: EvidenceRecordOf<T> }[EvidenceType];

/** A record before it is appended: the ledger assigns `seq`, `prev` and `hash`. */
export type EvidenceDraft = { [T in EvidenceType]: Omit<EvidenceRecordOf<T>, 'seq' | 'prev' | 'hash'> }[EvidenceType];
