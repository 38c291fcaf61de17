import { CLIENT_PY } from '../client/index.js';
import { pyJsonExpression, tomlString } from '../python/index.js';
import { REJECTIONS_PY } from '../rejections/index.js';
import { INIT_PY, MANAGER_PY, PREFLIGHT_PY, STOP_PY, generatedHeader } from './common.js';
import type { AdapterPackage } from './plan.js';
import { packageReadme } from './readme.js';

/** A generated file: a path relative to the output folder (POSIX separators) and its bytes. */
export interface GeneratedFile {
  path: string;
  bytes: Buffer;
}

const text = (path: string, body: string): GeneratedFile => ({ path, bytes: Buffer.from(body, 'utf8') });

const DATA_PY = (header: string, data: Record<string, unknown>) => `${header}"""Contract data of this adapter package: product, pins, contract ids, rejections, hooks.

Emitted as ASCII JSON inside escaped string literals and parsed at import, so no contract text
is ever Python source.
"""

import json

DATA = ${pyJsonExpression(data)}
`;

/** The Python modules of one package, by file name (relative to the import package folder). */
export function packageModules(pkg: AdapterPackage): { name: string; text: string }[] {
  let cached = MODULES.get(pkg);
  if (!cached) MODULES.set(pkg, (cached = renderModules(pkg)));
  return cached;
}

/** Rendered once per planned package: the source tree and the wheel share them. */
const MODULES = new WeakMap<AdapterPackage, { name: string; text: string }[]>();

function renderModules(pkg: AdapterPackage): { name: string; text: string }[] {
  const header = generatedHeader(pkg.product.name);
  const modules: Record<string, string> = {
    '__init__.py': `${header}${INIT_PY}`,
    '_data.py': DATA_PY(header, pkg.data),
    'rejections.py': `${header}${REJECTIONS_PY}`,
    'preflight.py': `${header}${PREFLIGHT_PY}`,
    'manager.py': `${header}${MANAGER_PY}`,
    '_client.py': `${header}${CLIENT_PY}`,
    'stop.py': `${header}${STOP_PY}`,
    // PEP 561: the package ships its inline type hints.
    'py.typed': '',
  };
  for (const [name, body] of Object.entries(pkg.modules)) modules[name] = `${header}${body}`;
  return Object.keys(modules)
    .sort()
    .map((name) => ({ name, text: modules[name]! }));
}

/** The metadata a packager expects, shared by pyproject.toml and the wheel's METADATA. */
export interface PackageMetadata {
  summary: string;
  license: string | null;
  urls: [string, string][];
  classifiers: string[];
  /** Console scripts: name to `module:function`. */
  scripts: [string, string][];
  extra: string;
  requirement: string;
}

export function packageMetadata(pkg: AdapterPackage): PackageMetadata {
  const classifiers = [
    'Development Status :: 4 - Beta',
    'Intended Audience :: Developers',
    'Operating System :: POSIX :: Linux',
    'Programming Language :: Python :: 3',
    'Programming Language :: Python :: 3 :: Only',
    'Topic :: Scientific/Engineering :: Artificial Intelligence',
    'Typing :: Typed',
  ];
  return {
    summary: summary(pkg),
    license: pkg.product.license,
    urls: Object.entries(pkg.product.urls).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    classifiers,
    scripts: [[`${pkg.distribution}-preflight`, `${pkg.importName}.preflight:run`]],
    extra: pkg.engine.name.replace(/[^A-Za-z0-9_-]/g, '-'),
    requirement: `${pkg.engine.distribution}==${pkg.engine.version}`,
  };
}

/**
 * PEP 621 metadata: the engine extra pins the engine exactly; the entry point is the engine's
 * plugin group. No build backend: the wheel is built by the generator (one build path), so this
 * file is the package's metadata for readers and tools, not a recipe.
 */
export function pyprojectToml(pkg: AdapterPackage): string {
  const meta = packageMetadata(pkg);
  const lines = [
    `# Generated from the ${pkg.product.name} contracts by the contract generator; do not edit.`,
    '# The wheel is built by the generator ("generate --wheel"); there is no other build path.',
    '[project]',
    `name = ${tomlString(pkg.distribution)}`,
    `version = ${tomlString(pkg.version)}`,
    `description = ${tomlString(meta.summary)}`,
    'readme = "README.md"',
    'requires-python = ">=3.10"',
    ...(meta.license ? [`license = ${tomlString(meta.license)}`] : []),
    `classifiers = [${meta.classifiers.map(tomlString).join(', ')}]`,
    'dependencies = []',
    '',
    '[project.optional-dependencies]',
    `${meta.extra} = [${tomlString(meta.requirement)}]`,
    '',
    ...(meta.urls.length ? ['[project.urls]', ...meta.urls.map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`), ''] : []),
    '[project.scripts]',
    ...meta.scripts.map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`),
    '',
    `[project.entry-points.${tomlString(pkg.entryPointGroup)}]`,
    `${tomlString(pkg.entryPointName)} = ${tomlString(pkg.entryPoint)}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** One-line package summary (metadata). */
export function summary(pkg: AdapterPackage): string {
  return `${pkg.product.name} adapter for ${pkg.engine.distribution} ${pkg.engine.version}, generated from the ${pkg.product.name} contracts`;
}

/** The source tree of one package: `<distribution>/pyproject.toml` and `<distribution>/<import name>/*.py`. */
export function emitPackage(pkg: AdapterPackage): GeneratedFile[] {
  return [
    text(`${pkg.distribution}/pyproject.toml`, pyprojectToml(pkg)),
    text(`${pkg.distribution}/README.md`, packageReadme(pkg)),
    ...packageModules(pkg).map((m) => text(`${pkg.distribution}/${pkg.importName}/${m.name}`, m.text)),
  ];
}
