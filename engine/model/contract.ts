import type { EngineContract } from './engine.js';
import type { GapContract } from './gap.js';
import type { GateContract } from './gate.js';
import type { HookContract } from './hook.js';
import type { InterfaceContract } from './interface.js';
import type { PolicyContract } from './policy.js';
import type { RejectionContract } from './rejection.js';
import type { UpstreamContract } from './upstream.js';

/** Any contract, discriminated by `kind`. */
export type Contract =
  | EngineContract
  | InterfaceContract
  | HookContract
  | GapContract
  | RejectionContract
  | GateContract
  | UpstreamContract
  | PolicyContract;

/** The kind names, in the canonical order reports use. */
export const CONTRACT_KINDS = ['engine', 'interface', 'hook', 'gap', 'rejection', 'gate', 'upstream', 'policy'] as const;

export type ContractKind = (typeof CONTRACT_KINDS)[number];

/** The folder each kind's contracts live in, in any registry (`policies/`, not `policys/`). */
export const KIND_FOLDERS: Readonly<Record<ContractKind, string>> = {
  engine: 'engines',
  interface: 'interfaces',
  hook: 'hooks',
  gap: 'gaps',
  rejection: 'rejections',
  gate: 'gates',
  upstream: 'upstreams',
  policy: 'policies',
};

/** The TypeScript type name each kind's schema is generated from. */
export const KIND_TYPE_NAMES: Record<ContractKind, string> = {
  engine: 'EngineContract',
  interface: 'InterfaceContract',
  hook: 'HookContract',
  gap: 'GapContract',
  rejection: 'RejectionContract',
  gate: 'GateContract',
  upstream: 'UpstreamContract',
  policy: 'PolicyContract',
};

/** The contract of a given kind. */
export type ContractOf<K extends ContractKind> = Extract<Contract, { kind: K }>;
