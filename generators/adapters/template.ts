import type { Diagnostic } from '../../engine/diagnostics/index.js';
import type { EngineContract, HookContract, InterfaceContract } from '../../engine/model/index.js';
import type { Registry } from '../../engine/registry/index.js';
import type { Product } from '../../engine/registry/index.js';
import type { ProfileRules } from '../rejections/profile.js';

/** Hook types applied through an engine's hook registry on a dotted target; other types attach through template classes. */
export const REGISTRY_HOOK_TYPES: readonly string[] = ['BEFORE', 'AFTER', 'AROUND', 'REPLACE'];

/** What an engine's adapter template sees: the contracts of that engine, already selected. */
export interface TemplateContext {
  registry: Registry;
  engine: EngineContract;
  /** Interface contracts of the engine (consumed symbols, adapter classes). */
  interfaces: InterfaceContract[];
  /** Kept hook contracts of the engine, sorted by id. */
  hooks: HookContract[];
  /** The adapter's top-level import name (`orbitkv_vllm`). */
  importName: string;
  /** The product (from the registry's product policy). */
  product: Product;
}

/** One template's contribution: data for `_data.py`, the modules of the chosen integration style, and findings. */
export interface TemplateData {
  data: Record<string, unknown>;
  /** Python modules, by file name, beyond the common ones (fixed text reading `_data`). */
  modules: Record<string, string>;
  /** Module-level names the modules define for non-registry hooks (`linker.RecoveryLinkerWrapper`). */
  provides: string[];
  /** The module that builds each interface's `adapterClass` from data (`connector`, `linker`, `storage`). */
  adapterModule: string;
  diagnostics: Diagnostic[];
}

/**
 * An engine's adapter template: the only place engine-specific Python lives. Its modules are
 * fixed text that reads every contract-derived value from the package's `_data` module.
 */
export interface AdapterTemplate {
  /** The module holding registry-installed hook bodies, if the engine installs hooks (`hooks`). */
  hookModule?: string;
  /** The entry point object (`plugin:register`). */
  entryPoint: string;
  /** How the engine reads the facts rejections look at (a fallback config root, env normalisation); both rejection emitters apply them. */
  profile?: ProfileRules;
  /** Template-specific data, modules and provided names, chosen by the consumed interface contracts. */
  data(context: TemplateContext): TemplateData;
}

/** Splits `a.b.c.Name` into module `a.b.c` and name `Name`. */
export function splitDotted(path: string): { module: string; name: string } {
  const at = path.lastIndexOf('.');
  return { module: path.slice(0, at), name: path.slice(at + 1) };
}

/** The consumed symbol of the engine's interfaces whose dotted target ends with `suffix`, with its contract. */
export function consumedSymbol(context: TemplateContext, suffix: string): { target: string; contract: string; index: number } | undefined {
  for (const iface of context.interfaces) {
    const index = iface.symbols.findIndex((s) => s.target === suffix || s.target.endsWith(`.${suffix}`));
    const symbol = iface.symbols[index];
    if (symbol) return { target: symbol.target, contract: iface.id, index };
  }
  return undefined;
}
