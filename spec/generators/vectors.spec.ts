import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Registry, compareVersions } from '../../engine/registry/index.js';
import { emitTypescriptRejections, rejectionTable } from '../../generators/index.js';
import { REPO, checksPackage, embeddedRegistry, generatedOnce, packageRoots, python, registryAt, tempDir, unittest } from './support.js';

interface VectorCase {
  name: string;
  profile: { engine: string; version: string; env: Record<string, string>; config: Record<string, unknown> };
  expected: { accepted: boolean; rejections: string[] };
}
interface VectorSet {
  title: string;
  registry: () => Registry;
  files: string[];
  roots: () => string[];
  typescript: () => string;
}

const VECTORS = join(REPO, 'spec', 'vectors');
const readCases = (file: string): VectorCase[] => (JSON.parse(readFileSync(file, 'utf8')) as { cases: VectorCase[] }).cases;
const key = (file: string, c: VectorCase) => `${file.split('/').pop()}#${c.name}`;

const operatorRegistry = () => registryAt(join(VECTORS, 'operators', 'registry'));
const sets: VectorSet[] = [
  {
    title: 'embedded registry (spec/vectors/rejections)',
    registry: embeddedRegistry,
    files: readdirSync(join(VECTORS, 'rejections')).filter((f) => f.endsWith('.json')).sort().map((f) => join(VECTORS, 'rejections', f)),
    roots: () => packageRoots(generatedOnce()),
    typescript: () => join(generatedOnce(), 'typescript', 'rejections.ts'),
  },
  {
    title: 'operator registry (spec/vectors/operators)',
    registry: operatorRegistry,
    files: [join(VECTORS, 'operators', 'cases.json')],
    roots: () => [checksPackage(rejectionTable(operatorRegistry()))],
    typescript: () => {
      const file = join(tempDir('ts-ops'), 'rejections.ts');
      writeFileSync(file, emitTypescriptRejections(rejectionTable(operatorRegistry())));
      return file;
    },
  },
];

describe('generators/rejections: shared vectors, Python and TypeScript', function () {
  this.timeout(120_000);

  for (const set of sets) {
    describe(set.title, () => {
      const cases = set.files.flatMap((file) => readCases(file).map((c) => ({ file, c })));
      const tsVerdicts = new Map<string, unknown>();

      it('covers every rejection contract: some vector rejects it, some vector of its engine does not', () => {
        for (const r of set.registry().ofKind('rejection')) {
          // A constant predicate (`all: []` always holds, `any: []` never does) has only one side.
          const always = 'all' in r.when && r.when.all.length === 0;
          const never = 'any' in r.when && r.when.any.length === 0;
          if (!never) assert.ok(cases.some(({ c }) => c.expected.rejections.includes(r.id)), `${r.id} has a rejecting vector`);
          if (!always) assert.ok(cases.some(({ c }) => c.profile.engine === r.engine && !c.expected.rejections.includes(r.id)), `${r.id} has a passing vector`);
        }
      });

      it('the TypeScript module gives the expected verdicts', async () => {
        const mod = (await import(pathToFileURL(set.typescript()).href)) as {
          evaluate(p: unknown): { accepted: boolean; rejections: { id: string }[] };
          describe(entry: unknown): string;
        };
        for (const { file, c } of cases) {
          const verdict = mod.evaluate(c.profile);
          assert.equal(verdict.accepted, c.expected.accepted, key(file, c));
          assert.deepEqual(verdict.rejections.map((r) => r.id), c.expected.rejections, key(file, c));
          tsVerdicts.set(key(file, c), { verdict: JSON.parse(JSON.stringify(verdict)), text: verdict.rejections.map((e) => mod.describe(e)) });
        }
      });

      it('the Python checks (unittest) give identical verdicts and messages on every vector', () => {
        const out = join(tempDir('verdicts'), 'verdicts.json');
        unittest('test_vectors.py', { ORBITKV_PACKAGE_ROOTS: set.roots().join(':'), ORBITKV_VECTOR_FILES: set.files.join(':'), ORBITKV_VERDICTS_OUT: out });
        const python = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
        assert.equal(Object.keys(python).length, cases.length);
        assert.equal(tsVerdicts.size, cases.length, 'TypeScript verdicts computed first');
        for (const [k, verdict] of tsVerdicts) assert.deepEqual(python[k], verdict, k);
      });
    });
  }

  it('both languages find the same malformed profiles', async () => {
    const file = join(tempDir('ts-problems'), 'rejections.ts');
    writeFileSync(file, emitTypescriptRejections(rejectionTable(embeddedRegistry())));
    const mod = (await import(pathToFileURL(file).href)) as { profileProblem(p: unknown): string | undefined };
    const profiles: unknown[] = [null, [], 'x', {}, { engine: 'vllm' }, { engine: 'vllm', version: 1 }, { engine: 'vllm', version: '1', env: { A: 1 } }, { engine: 'vllm', version: '1', env: [] }, { engine: 'vllm', version: '1', config: [] }, { engine: 'vllm', version: '1', env: null }, { engine: 'vllm', version: '1', config: null }, { engine: 'vllm', version: '1' }, { engine: 'vllm', version: '1', env: { A: 'b' }, config: { x: {} } }];
    const script = 'import json, sys\nsys.path[:0] = sys.argv[2:]\nfrom orbitkv_vllm import rejections\nprint(json.dumps([rejections.profile_problem(p) for p in json.loads(sys.argv[1])]))';
    const r = python(['-c', script, JSON.stringify(profiles), ...packageRoots(generatedOnce())]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), profiles.map((p) => mod.profileProblem(p) ?? null));
  });

  it('both languages order versions under PEP 440, as the engine does (spec/vectors/versions)', async () => {
    const { ascending, equal, invalid } = JSON.parse(readFileSync(join(VECTORS, 'versions', 'order.json'), 'utf8')) as { ascending: string[]; equal: [string, string][]; invalid: string[] };
    const pairs: [string, string][] = [...ascending.flatMap((a) => ascending.map((b) => [a, b] as [string, string])), ...equal, ...invalid.map((v) => [v, '1.0'] as [string, string])];
    // What the engine's comparison says, as the two predicates: [version-less-than, version-at-least].
    const expected = pairs.map(([a, b]) => (invalid.includes(a) ? [false, false] : [compareVersions(a, b) < 0, compareVersions(a, b) >= 0]));
    const leaf = (op: string, value: string) => ({ version: 'engine', op, value });
    const file = join(tempDir('ts-versions'), 'rejections.ts');
    writeFileSync(file, emitTypescriptRejections(rejectionTable(embeddedRegistry())));
    const mod = (await import(pathToFileURL(file).href)) as { holds(p: unknown, profile: unknown): boolean };
    const ts = pairs.map(([a, b]) => ['version-less-than', 'version-at-least'].map((op) => mod.holds(leaf(op, b), { engine: 'x', version: a, env: {}, config: {} })));
    assert.deepEqual(ts, expected);
    const script = 'import json, sys\nsys.path[:0] = sys.argv[2:]\nfrom orbitkv_vllm import rejections\nprint(json.dumps([[rejections.holds({"version": "engine", "op": op, "value": b}, {"engine": "x", "version": a, "env": {}, "config": {}}) for op in ("version-less-than", "version-at-least")] for a, b in json.loads(sys.argv[1])]))';
    const r = python(['-c', script, JSON.stringify(pairs), ...packageRoots(generatedOnce())]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), expected);
  });

  it('the V2 runner switch is covered in all its states: unset, 0, 1 and the config flag', () => {
    const v2 = readCases(join(VECTORS, 'rejections', 'vllm.v2-model-runner.json'));
    const env = (c: VectorCase) => c.profile.env.VLLM_USE_V2_MODEL_RUNNER;
    const flag = (c: VectorCase) => (c.profile.config.vllm_config as Record<string, unknown> | undefined)?.use_v2_model_runner;
    const rejected = (c: VectorCase) => c.expected.rejections.includes('rejection.vllm.v2-model-runner');
    assert.ok(v2.some((c) => env(c) === undefined && rejected(c)), 'unset rejects');
    assert.ok(v2.some((c) => env(c) === '1' && rejected(c)), '1 rejects');
    assert.ok(v2.some((c) => env(c) === '0' && flag(c) === false && !rejected(c)), '0 with the flag false passes');
    assert.ok(v2.some((c) => env(c) === '0' && flag(c) === true && rejected(c)), '0 with the flag true rejects');
  });
});
