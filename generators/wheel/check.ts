import { diagnose, type Diagnostic } from '../../engine/diagnostics/index.js';
import type { Registry } from '../../engine/registry/index.js';
import { planAdapters, wheelRules } from '../adapters/index.js';
import { globToRegExp } from './glob.js';
import { recordHash } from './wheel.js';
import { type ZipMember, readZip } from './zip.js';

const normalise = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/** `Key: value` headers of a METADATA file (repeated keys kept in order). */
function headers(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const line of text.split('\n')) {
    if (line === '') break;
    const at = line.indexOf(':');
    if (at > 0) out.push([line.slice(0, at), line.slice(at + 1).trim()]);
  }
  return out;
}

/** Entry points by group: `[group]` sections of `name = value` lines. */
function entryPoints(text: string): Map<string, Map<string, string>> {
  const groups = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const section = /^\[(.+)\]$/.exec(line);
    if (section) groups.set(section[1]!, (current = groups.get(section[1]!) ?? new Map()));
    else if (current && line.includes('=')) current.set(line.slice(0, line.indexOf('=')).trim(), line.slice(line.indexOf('=') + 1).trim());
  }
  return groups;
}

/**
 * The packaging gate over one wheel, from the registry's wheel-contents policies and engine
 * contracts: required files, entry points, exact engine pins, no retired paths, no bytecode,
 * RECORD hashes. Returns one diagnostic per violation (none: the wheel passes).
 */
export function checkWheel(registry: Registry, bytes: Buffer, file: string): Diagnostic[] {
  const at = (contract?: string) => ({ file, ...(contract ? { contract } : {}) });
  let members: ZipMember[];
  try {
    members = readZip(bytes);
  } catch (error) {
    return [diagnose('wheelUnreadable', at(), (error as Error).message)];
  }
  const byName = new Map(members.map((m) => [m.name, m]));
  const metadataMember = members.find((m) => /^[^/]+\.dist-info\/METADATA$/.test(m.name));
  if (!metadataMember) return [diagnose('wheelUnreadable', at(), 'no .dist-info/METADATA')];
  const info = metadataMember.name.slice(0, metadataMember.name.indexOf('/'));
  const meta = headers(metadataMember.bytes.toString('utf8'));
  const name = meta.find(([k]) => k === 'Name')?.[1] ?? '';
  const { packages } = planAdapters(registry, '0');
  const pkg = packages.find((p) => normalise(p.distribution) === normalise(name));
  if (!pkg) return [diagnose('wheelUnknownPackage', at(), name, packages.map((p) => p.distribution).join(', ') || 'none')];
  const diagnostics: Diagnostic[] = [];

  for (const { id, rule } of wheelRules(registry)) {
    for (const required of rule.required) {
      const path = required.replace(/\{package\}/g, pkg.importName);
      if (!byName.has(path)) diagnostics.push(diagnose('wheelRequiredFileMissing', at(id), path));
    }
    const forbidden = rule.forbidden.map((f) => ({ ...f, re: globToRegExp(f.pattern) }));
    for (const m of members) {
      const hit = forbidden.find((f) => f.re.test(m.name));
      if (hit) diagnostics.push(diagnose('wheelForbiddenPath', at(id), m.name, hit.pattern, hit.reason));
      if (rule.forbidBytecode && (/\.py[co]$/.test(m.name) || m.name.includes('__pycache__/'))) diagnostics.push(diagnose('wheelBytecode', at(id), m.name));
    }
    if (rule.exactEnginePins) {
      const engines = registry.ofKind('engine').filter((e) => e.role === 'runtime');
      const requirements = meta.filter(([k]) => k === 'Requires-Dist').map(([, v]) => v);
      for (const requirement of requirements) {
        const spec = requirement.split(';')[0]!.trim();
        const reqName = /^[A-Za-z0-9._-]+/.exec(spec)?.[0] ?? '';
        const engine = engines.find((e) => normalise(e.distribution) === normalise(reqName));
        if (!engine) continue;
        const expected = `${engine.distribution}==${engine.version}`;
        if (spec.replace(/\s+/g, '') !== expected) diagnostics.push(diagnose('wheelPinNotExact', at(id), requirement, expected));
      }
      const own = `${pkg.engine.distribution}==${pkg.engine.version}`;
      if (!requirements.some((r) => r.split(';')[0]!.replace(/\s+/g, '') === own && /extra\s*==/.test(r))) diagnostics.push(diagnose('wheelPinMissing', at(id), own));
    }
  }

  const eps = entryPoints(byName.get(`${info}/entry_points.txt`)?.bytes.toString('utf8') ?? '');
  if (eps.get(pkg.entryPointGroup)?.get(pkg.entryPointName) !== pkg.entryPoint) diagnostics.push(diagnose('wheelEntryPointMissing', at(pkg.engine.id), pkg.entryPointGroup, `${pkg.entryPointName} = ${pkg.entryPoint}`));

  const record = byName.get(`${info}/RECORD`);
  if (!record) diagnostics.push(diagnose('wheelRequiredFileMissing', at(), `${info}/RECORD`));
  else {
    const listed = new Map<string, string>();
    for (const line of record.bytes.toString('utf8').split('\n')) {
      if (!line) continue;
      const [path, hash, size] = line.split(',');
      listed.set(path!, `${hash},${size}`);
    }
    for (const m of members) {
      if (m.name === record.name) continue;
      const entry = listed.get(m.name);
      if (entry === undefined) diagnostics.push(diagnose('wheelRecordMismatch', at(), m.name, 'not listed'));
      else if (entry !== `${recordHash(m.bytes)},${m.bytes.length}`) diagnostics.push(diagnose('wheelRecordMismatch', at(), m.name, 'hash or size differs'));
    }
    for (const path of listed.keys()) if (path !== record.name && !byName.has(path)) diagnostics.push(diagnose('wheelRecordMismatch', at(), path, 'listed but missing'));
  }
  return diagnostics;
}
