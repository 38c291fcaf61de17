import type { EvidenceRelease } from '../../model/index.js';
import type { CellResult, IndependentEvidence } from './requirement.js';

/** How a pass's before/after hashes stand: equal, different, kept outside the ledger, or absent. */
export type HashStanding = 'equal' | 'differ' | 'kept' | 'missing';

/**
 * The events the lifecycle machines take. The fold derives them from evidence records with the
 * facts of the moment (current pins, who is an author), so every guard is a pure function of
 * the machine's context and one event.
 */
export type LifecycleEvent =
  | { type: 'pin'; seq: number; engine: string; version: string; line: string }
  | { type: 'upstream.state'; seq: number; upstream: string; state: 'open' | 'merged' | 'closed' }
  | { type: 'upstream.released'; seq: number; upstream: string; line: string; version: string }
  | { type: 'recheck'; seq: number; at: string }
  | { type: 'consumed'; seq: number; subject: string; condition: number; adapter?: string; release?: EvidenceRelease; engines: string[]; onPins: boolean }
  | {
      type: 'gate.result'; seq: number; gate: string; cell: string; pass: boolean; adapter?: string; hashes: HashStanding; engines: string[]; onPins: boolean; independent: boolean; actor: string;
      /** `gate|cell`, the key of the result in a requirement context. */
      key: string;
      /** The result every listener stores: built once per record and shared (never mutated). */
      result: CellResult;
      /** Its independent evidence, when the actor is independent and it passed: shared likewise. */
      evidence: IndependentEvidence;
    }
  | { type: 'gate.acceptance'; seq: number; gate: string; accepted: boolean; adapter?: string; engines: string[]; onPins: boolean; independent: boolean; evidence: IndependentEvidence }
  | { type: 'verify'; seq: number; at: string; result: string }
  | { type: 'removed'; seq: number; onPins: boolean }
  | { type: 'dropped'; seq: number; onPins: boolean }
  | { type: 'reinstated'; seq: number }
  | { type: 'expanded'; seq: number; onPins: boolean };

export type LifecycleEventType = LifecycleEvent['type'];

export type EventOf<T extends LifecycleEventType> = Extract<LifecycleEvent, { type: T }>;
