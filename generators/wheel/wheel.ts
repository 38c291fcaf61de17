import { createHash } from 'node:crypto';
import { packageMetadata, packageModules, packageReadme } from '../adapters/index.js';
import type { AdapterPackage } from '../adapters/index.js';
import { type ZipMember, writeZip } from './zip.js';

/** `sha256=<urlsafe base64, unpadded>` as RECORD writes it. */
export function recordHash(bytes: Buffer): string {
  return `sha256=${createHash('sha256').update(bytes).digest('base64url')}`;
}

/** The wheel's file name (PEP 427): `orbitkv_vllm-0.1.0-py3-none-any.whl`. */
export function wheelName(pkg: AdapterPackage): string {
  return `${pkg.distribution.replace(/[-.]+/g, '_')}-${pkg.version}-py3-none-any.whl`;
}

/** The `.dist-info` folder name. */
export function distInfo(pkg: AdapterPackage): string {
  return `${pkg.distribution.replace(/[-.]+/g, '_')}-${pkg.version}.dist-info`;
}

/** Core metadata 2.1: the engine extra pins the engine exactly. */
export function metadata(pkg: AdapterPackage): string {
  const meta = packageMetadata(pkg);
  return [
    'Metadata-Version: 2.1',
    `Name: ${pkg.distribution}`,
    `Version: ${pkg.version}`,
    `Summary: ${meta.summary}`,
    ...(meta.license ? [`License: ${meta.license}`] : []),
    ...meta.urls.map(([label, url]) => `Project-URL: ${label}, ${url}`),
    ...meta.classifiers.map((c) => `Classifier: ${c}`),
    'Requires-Python: >=3.10',
    `Provides-Extra: ${meta.extra}`,
    `Requires-Dist: ${meta.requirement}; extra == "${meta.extra}"`,
    'Description-Content-Type: text/markdown',
    '',
    packageReadme(pkg),
  ].join('\n');
}

/**
 * An installable PEP 427 wheel, byte-for-byte deterministic: sorted package files, then
 * METADATA, WHEEL, entry_points.txt and RECORD (with sha256 hashes) last; fixed timestamps.
 * No build backend and no network.
 */
export function buildWheel(pkg: AdapterPackage): Buffer {
  const info = distInfo(pkg);
  const members: ZipMember[] = packageModules(pkg).map((m) => ({ name: `${pkg.importName}/${m.name}`, bytes: Buffer.from(m.text, 'utf8') }));
  members.push({ name: `${info}/METADATA`, bytes: Buffer.from(metadata(pkg), 'utf8') });
  members.push({ name: `${info}/WHEEL`, bytes: Buffer.from('Wheel-Version: 1.0\nGenerator: contract-generator\nRoot-Is-Purelib: true\nTag: py3-none-any\n', 'utf8') });
  const scripts = packageMetadata(pkg).scripts.map(([name, value]) => `${name} = ${value}\n`).join('');
  members.push({ name: `${info}/entry_points.txt`, bytes: Buffer.from(`[console_scripts]\n${scripts}\n[${pkg.entryPointGroup}]\n${pkg.entryPointName} = ${pkg.entryPoint}\n`, 'utf8') });
  const record = members.map((m) => `${m.name},${recordHash(m.bytes)},${m.bytes.length}`).concat(`${info}/RECORD,,`, '').join('\n');
  members.push({ name: `${info}/RECORD`, bytes: Buffer.from(record, 'utf8') });
  return writeZip(members);
}
