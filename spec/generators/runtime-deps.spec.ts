/**
 * What the CLI imports at run time is installed with it: a package imported (not `import type`)
 * by engine/, generators/, native/ or bin/ is a `dependency`, so `npm ci --omit=dev` leaves a
 * working `orbitkv` (ts-morph, which `generate` runs, was a devDependency once). And the
 * TypeScript rejection module is built from ts-morph structures, not from pasted source text.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Node, Project, SyntaxKind } from 'ts-morph';

/** Packages only development commands load, each with why (they fail with a coded diagnostic without it). */
const DEVELOPMENT_ONLY: Record<string, string> = { 'typescript-json-schema': '`orbitkv schema` regenerates contracts/schema from engine/model sources (OKV5012 without it)' };

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);

describe('generators: run-time dependencies and the rejection module build', () => {
  it('every package the shipped code imports at run time is a dependency, not a devDependency', () => {
    const files = execFileSync('git', ['ls-files', '--', 'engine', 'generators', 'native', 'bin'], { encoding: 'utf8' }).split('\n').filter((f) => /\.(ts|js)$/.test(f));
    const used = new Map<string, string>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^\s*import\s+(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]|(?<!typeof )import\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
        const spec = m[1] ?? m[2] ?? m[3]!;
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        used.set(packageOf(spec), file);
      }
    }
    assert.ok(used.has('yaml') && used.has('ts-morph'), [...used.keys()].join(', '));
    for (const name of Object.keys(DEVELOPMENT_ONLY)) assert.ok(Object.hasOwn(pkg.devDependencies, name), name);
    const missing = [...used].filter(([name]) => !Object.hasOwn(pkg.dependencies, name) && !Object.hasOwn(DEVELOPMENT_ONLY, name)).map(([name, file]) => `${name} (imported by ${file})`);
    assert.deepEqual(missing, []);
  });

  it('the rejection emitter holds no declaration as source text: types, interfaces and functions come from structures', () => {
    const project = new Project({ useInMemoryFileSystem: false, skipAddingFilesFromTsConfig: true });
    const source = project.addSourceFileAtPath('generators/rejections/typescript.ts');
    const texts = source.getDescendants().filter((n) => Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n) || n.getKind() === SyntaxKind.TemplateExpression).map((n) => n.getText());
    const declarations = texts.filter((t) => /\b(export\s+)?(function|interface)\s+[A-Za-z_]+\s*[({<]|\bexport\s+type\s+[A-Za-z_]+\s*=/.test(t));
    assert.deepEqual(declarations, []);
  });
});
