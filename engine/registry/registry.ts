import type { Contract, ContractKind, ContractOf, EngineContract } from '../model/index.js';
import type { SourceRange } from '../diagnostics/index.js';
import { type SourceFile, rangeAtPath } from './source.js';

/** A loaded contract with the file it came from. */
export interface ContractEntry<C extends Contract = Contract> {
  contract: C;
  source: SourceFile;
}

/**
 * The typed registry every phase reads: contracts by id and kind, with their sources so any
 * later phase can point a diagnostic at `file:line:col`.
 */
/** A file that named a contract but failed the schema: its id (and engine name) is known, its contract left out. */
export interface RefusedContract {
  kind: string;
  id: string;
  /** An engine contract's `name`, when it had one. */
  name?: string;
}

export class Registry {
  private readonly byId = new Map<string, ContractEntry>();
  private readonly byKind = new Map<ContractKind, ContractEntry[]>();
  private readonly engines = new Map<string, EngineContract>();

  constructor(
    /** Absolute path of the registry folder. */
    readonly root: string,
    /** Every structurally valid contract, in file order. */
    readonly entries: readonly ContractEntry[],
    /**
     * Contracts that were written but failed the schema. Their own errors are reported; rules
     * that would otherwise call them missing (an unpinned engine, an unresolved reference) stay
     * silent, so one bad contract gives its errors and no cascade.
     */
    readonly refused: readonly RefusedContract[] = [],
  ) {
    for (const entry of entries) {
      const { contract } = entry;
      if (!this.byId.has(contract.id)) this.byId.set(contract.id, entry);
      const same = this.byKind.get(contract.kind);
      if (same) same.push(entry);
      else this.byKind.set(contract.kind, [entry]);
      if (contract.kind === 'engine' && !this.engines.has(contract.name)) this.engines.set(contract.name, contract);
    }
  }

  get contracts(): Contract[] {
    return this.entries.map((e) => e.contract);
  }

  /** The first contract with this id (duplicates are diagnosed by validation). */
  get(id: string): Contract | undefined {
    return this.byId.get(id)?.contract;
  }

  entry(id: string): ContractEntry | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  ofKind<K extends ContractKind>(kind: K): ContractOf<K>[] {
    return this.entriesOfKind(kind).map((e) => e.contract);
  }

  entriesOfKind<K extends ContractKind>(kind: K): ContractEntry<ContractOf<K>>[] {
    return [...(this.byKind.get(kind) ?? [])] as ContractEntry<ContractOf<K>>[];
  }

  /** Whether a contract with this id was written but failed the schema (see `refused`). */
  isRefused(id: string): boolean {
    return this.refused.some((r) => r.id === id);
  }

  /** Whether an engine contract naming `name` was written but failed the schema. */
  isRefusedEngine(name: string): boolean {
    return this.refused.some((r) => r.kind === 'engine' && r.name === name);
  }

  /** The engine contract pinning `name`. */
  engine(name: string): EngineContract | undefined {
    return this.engines.get(name);
  }

  /** Where a field of a contract is, for diagnostics of later phases. */
  locate(id: string, path: ReadonlyArray<string | number> = [], key = false): { file: string; range: SourceRange } | undefined {
    const entry = this.byId.get(id);
    if (!entry) return undefined;
    return { file: entry.source.file, range: rangeAtPath(entry.source, path, key) };
  }
}
