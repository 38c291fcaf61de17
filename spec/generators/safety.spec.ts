import assert from 'node:assert/strict';
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Project } from 'ts-morph';
import { parseDocument } from 'yaml';
import { generateAdapters, planAdapters, pyStringLiteral } from '../../generators/index.js';
import { REPO, packageRoots, python, registryAt, tempDir } from './support.js';

/** Pieces that break naive code generation: quotes, escapes, braces, newlines, NUL, non-ASCII. */
const NASTY = ["'''", '"""', '\\', '\\n', '\\x00', '\\N{BULLET}', '\\u1234', '{', '}', '{0}', '${x}', '%s', '\n', '\r\n', '\t', '\u0000', '\u0007', '\u007f', 'é', '中文', '😀', '\u2028', '\u2029', '*/', '`', "'", '"', '#', '</script>', ' ', 'a', 'Z9'];

function fuzzer(seed: number): () => string {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
  return () => Array.from({ length: 1 + (next() % 12) }, () => NASTY[next() % NASTY.length]).join('');
}

/** Evaluates Python expressions (one per line) and returns what they evaluate to, through ASCII JSON. */
function evaluateInPython(literals: string[]): unknown[] {
  const r = python(['-c', 'import ast, json, sys\nprint(json.dumps([ast.literal_eval(l) for l in sys.stdin.read().split("\\n") if l], ensure_ascii=True))'], { input: literals.join('\n') });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as unknown[];
}

describe('generators: generated files are data-safe', function () {
  this.timeout(120_000);

  it('pyStringLiteral round-trips random strings, lone surrogates included', () => {
    const next = fuzzer(7);
    const samples = Array.from({ length: 300 }, next).concat(['', '\ud800', 'x\udfff', '\udbff\udfff', String.fromCharCode(...Array.from({ length: 128 }, (_, i) => i))]);
    const literals = samples.map(pyStringLiteral);
    for (const l of literals) assert.match(l, /^"[\x20-\x7e]*"$/, 'ASCII only, one line');
    assert.deepEqual(evaluateInPython(literals), samples);
  });

  describe('a registry whose strings are fuzzed', () => {
    const dir = tempDir('fuzz-registry');
    const out = tempDir('fuzz-out');
    const expected: Record<string, string> = {};

    before(() => {
      cpSync(join(REPO, 'contracts'), dir, { recursive: true });
      const next = fuzzer(42);
      for (const kind of ['rejections', 'hooks']) {
        for (const name of readdirSync(join(dir, kind))) {
          const file = join(dir, kind, name);
          const doc = parseDocument(readFileSync(file, 'utf8'));
          const fields = kind === 'rejections' ? [['message'], ['instead'], ['title']] : [['protects', 'text'], ['title']];
          for (const path of fields) {
            const value = next();
            doc.setIn(path, value);
            expected[`${String(doc.get('id'))}:${path.join('.')}`] = value;
          }
          writeFileSync(file, doc.toString());
        }
      }
      const result = generateAdapters(registryAt(dir), { outDir: out });
      assert.deepEqual(result.diagnostics, []);
    });

    it('the Python data modules read back exactly the strings of the contracts', () => {
      const registry = registryAt(dir);
      for (const r of registry.ofKind('rejection')) assert.equal(r.message, expected[`${r.id}:message`], 'the YAML kept the fuzzed text');
      const script = 'import importlib, json, sys\nsys.path[:0] = sys.argv[2:]\nprint(json.dumps({n: importlib.import_module(n + "._data").DATA for n in sys.argv[1].split(",")}, ensure_ascii=True))';
      const packages = planAdapters(registry, '0.1.0').packages;
      const r = python(['-c', script, packages.map((p) => p.importName).join(','), ...packageRoots(out)]);
      assert.equal(r.status, 0, r.stderr);
      const data = JSON.parse(r.stdout) as Record<string, unknown>;
      for (const pkg of packages) assert.deepEqual(data[pkg.importName], JSON.parse(JSON.stringify(pkg.data)), pkg.importName);
      const seen = JSON.stringify(data);
      for (const value of Object.values(expected)) assert.ok(seen.includes(JSON.stringify(value).slice(1, -1)), 'every fuzzed string reaches Python intact');
    });

    it('the package READMEs keep one table row per contract whatever the text', () => {
      const registry = registryAt(dir);
      for (const pkg of planAdapters(registry, '0.1.0').packages) {
        const readme = readFileSync(join(out, pkg.distribution, 'README.md'), 'utf8');
        const rows = readme.split('\n').filter((l) => l.startsWith('| `'));
        const ids = [...registry.ofKind('rejection'), ...registry.ofKind('hook')].filter((c) => c.engine === pkg.engine.name).map((c) => c.id);
        for (const row of rows) assert.equal(row.split('|').length, row.startsWith('| `hook.') ? 6 : 5, row);
        for (const r of registry.ofKind('rejection').filter((c) => c.engine === pkg.engine.name)) assert.equal(rows.filter((l) => l.startsWith(`| \`${r.id}\``)).length, 1, r.id);
        assert.ok(rows.length <= ids.length);
      }
    });

    it('every generated Python file passes py_compile', () => {
      const files = packageRoots(out).flatMap((root) => readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.py')).map((f) => join(root, f)));
      assert.ok(files.length >= 10);
      const cfile = join(tempDir('pyc'), 'check.pyc');
      const r = python(['-c', 'import py_compile, sys\nfor f in sys.argv[2:]:\n    py_compile.compile(f, cfile=sys.argv[1], doraise=True)', cfile, ...files]);
      assert.equal(r.status, 0, r.stderr);
    });

    it('the TypeScript rejection module type-checks and carries the same strings', async () => {
      const file = join(out, 'typescript', 'rejections.ts');
      const project = new Project({ compilerOptions: { strict: true, noUncheckedIndexedAccess: true, target: 9 /* ES2022 */, module: 199 /* NodeNext */, moduleResolution: 99 /* NodeNext */, noEmit: true, skipLibCheck: true, types: [] } });
      project.addSourceFileAtPath(file);
      const diagnostics = project.getPreEmitDiagnostics().map((d) => `${d.getLineNumber()}: ${JSON.stringify(d.getMessageText())}`);
      assert.deepEqual(diagnostics, []);
      const mod = (await import(`${file}?fuzz`)) as { REJECTIONS: { id: string; message: string; instead: string }[] };
      for (const r of mod.REJECTIONS) {
        assert.equal(r.message, expected[`${r.id}:message`]);
        assert.equal(r.instead, expected[`${r.id}:instead`]);
      }
    });
  });
});
