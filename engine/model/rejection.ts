import type { ContractBase, ContractId, EngineName } from './common.js';
import type { Predicate } from './predicate.js';

/**
 * An unsupported profile that must fail explicitly, before a cache connection is opened.
 * The generated Python and TypeScript checks evaluate `when` over the engine profile.
 */
export interface RejectionContract extends ContractBase {
  kind: 'rejection';
  /** The engine whose profiles it checks. */
  engine: EngineName;
  /** The profile is rejected when this holds. */
  when: Predicate;
  /** The message raised: names what is unsupported. */
  message: string;
  /** What to select instead, appended to the message. */
  instead: string;
  /**
   * Contracts (gaps, hooks, interfaces, policies) that justify it. At least one.
   * @minItems 1
   */
  justifiedBy: ContractId[];
  /** Profile facts the check needs, as `env.NAME` / `config.path` strings; derived and checked by validation. */
  facts?: string[];
}
