import type { ParameterKind, Signature } from '../../engine/model/index.js';

const KIND_CODES: Record<ParameterKind, string> = {
  'positional-only': 'po',
  'positional-or-keyword': 'pk',
  'var-positional': 'vp',
  'keyword-only': 'ko',
  'var-keyword': 'vk',
};

/**
 * A stable string for a signature: `name:kind` per parameter (`=` when it has a default),
 * joined by `,`, prefixed `async ` for coroutines. The generated installers compute the same
 * string from `inspect.signature` (kind codes from `inspect.Parameter.kind`).
 *
 * @example signatureFingerprint({ parameters: [{ name: 'self', kind: 'positional-or-keyword', hasDefault: false }] }) === 'self:pk'
 */
export function signatureFingerprint(signature: Signature): string {
  const params = signature.parameters.map((p) => `${p.name}:${KIND_CODES[p.kind]}${p.hasDefault ? '=' : ''}`).join(',');
  return `${signature.async ? 'async ' : ''}${params}`;
}
