import type { ContractBase, ContractId, DottedPath, EngineName } from './common.js';
import type { Signature } from './signature.js';

/** What kind of engine symbol is consumed. */
export type SymbolKind = 'class' | 'function' | 'method' | 'attribute' | 'entry-point-group' | 'cli-flag' | 'env-var';

/** One engine symbol an interface consumes. */
export interface ConsumedSymbol {
  /** The symbol: a dotted Python path, an entry-point group, a CLI flag or an env var name. */
  target: string;
  /** What it is. */
  kind: SymbolKind;
  /** The expected signature, for callables whose shape the adapter depends on. */
  signature?: Signature;
  /** What the adapter uses it for. */
  role: string;
}

/** Who owns what across the boundary. */
export interface Ownership {
  /** What the engine owns (pages, scheduling, live handoff). */
  engine: string;
  /** What the cache owns. */
  cache: string;
}

/** Delivery semantics of the boundary (`requires_kv_delivery`). */
export interface DeliverySemantics {
  /** `best-effort`: a missed load recomputes; `required`: the engine must not proceed without it. */
  mode: 'best-effort' | 'required';
  /** Rules the adapter and composition obey (e.g. MultiConnector requires delivery if any child does). */
  rules: string[];
  /** Upstream changes this semantics depends on (e.g. vLLM #46865). */
  dependsOn?: ContractId[];
}

/** Qualification state of the boundary as the audit records it. */
export type InterfaceStatus = 'consumed' | 'candidate' | 'qualified';

/** A consumed official engine interface ("Released integration boundaries"). */
export interface InterfaceContract extends ContractBase {
  kind: 'interface';
  /** The engine providing it. */
  engine: EngineName;
  /** The boundary's profile (`ordinary-cache`, `pd-disaggregation`). */
  profile: string;
  /** The engine symbols consumed; source verification checks each. */
  symbols: ConsumedSymbol[];
  /** Ownership split. */
  ownership: Ownership;
  /** Delivery semantics. */
  delivery: DeliverySemantics;
  /** `consumed` (in use, qualified by released tests), `candidate` (configuration exists, qualification open) or `qualified`. */
  status: InterfaceStatus;
  /** Gates whose passes qualify it. */
  qualifiedBy: ContractId[];
  /** Python import path of the adapter class the generator emits for this interface, if any. */
  adapterClass?: DottedPath;
}
