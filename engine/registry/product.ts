import type { ContractId, ProductRule } from '../model/index.js';
import type { Registry } from './registry.js';

/** The product an adapter package belongs to: names in messages and metadata, env prefix, package prefix. */
export interface Product {
  /** The product policy, or null when the registry has none (names derived from the adapter import names). */
  contract: ContractId | null;
  name: string;
  packagePrefix: string;
  envPrefix: string;
  license: string | null;
  urls: Record<string, string>;
}

/**
 * The registry's product identity from its `rule: product` policy. Without one, the names come
 * from the first adapter import name's first `_` word (`acme_vllm` gives `acme`, `ACME`), so an
 * older registry keeps generating; `packagePrefix` is then that word.
 */
export function productOf(registry: Registry, fallbackImportName: string | undefined = firstAdapterPackage(registry)): Product {
  const policy = registry.ofKind('policy').find((p) => p.policy.rule === 'product');
  if (policy && policy.policy.rule === 'product') {
    const rule: ProductRule = policy.policy;
    return { contract: policy.id, name: rule.name, packagePrefix: rule.packagePrefix, envPrefix: rule.envPrefix, license: rule.license ?? null, urls: Object.fromEntries((rule.urls ?? []).map((u) => [u.label, u.url])) };
  }
  const word = (fallbackImportName ?? 'adapter').split('_')[0] || 'adapter';
  return { contract: null, name: word, packagePrefix: word, envPrefix: word.toUpperCase().replace(/[^A-Z0-9]/g, ''), license: null, urls: {} };
}

/** The top-level package of the first adapter class (by sort order), the fallback product word. */
function firstAdapterPackage(registry: Registry): string | undefined {
  return registry.ofKind('interface').map((i) => i.adapterClass).filter((c): c is string => c !== undefined).sort()[0]?.split('.')[0];
}
