import { strict as assert } from 'node:assert';
import type { Parser } from 'web-tree-sitter';
import { extractTable } from '../../engine/verify/extract.js';
import { loadPythonParser } from '../../engine/verify/grammar.js';
import type { Definition, FunctionDefinition } from '../../engine/verify/table.js';

describe('verify: symbol tables extracted from Python', function () {
  let parser: Parser;
  before(async function () {
    parser = await loadPythonParser();
  });
  after(function () {
    parser.delete();
  });

  function table(source: string, needles: string[] = []) {
    const tree = parser.parse(source)!;
    try {
      return extractTable(tree, source, needles, new Set(['run', 'pick', 'f', 'g', 'ok', 'after', 'broken', '__init__']));
    } finally {
      tree.delete();
    }
  }
  const fn = (defs: Definition[], qualname: string): FunctionDefinition => {
    const d = defs.find((x) => x.qualname === qualname);
    assert.ok(d?.kind === 'function', qualname);
    return d;
  };

  it('normalises every parameter kind: positional-only, *args, keyword-only, **kwargs, defaults, annotations', function () {
    const { definitions } = table('def f(a, b: int, /, c=1, *args: str, d, e: bool = False, **kw) -> "list[int]":\n    pass\n\ndef g(x, *, y):\n    pass\n');
    assert.deepEqual(fn(definitions, 'f').parameters, [
      { name: 'a', kind: 'positional-only' },
      { name: 'b', kind: 'positional-only', annotation: 'int' },
      { name: 'c', kind: 'positional-or-keyword', default: '1' },
      { name: 'args', kind: 'var-positional', annotation: 'str' },
      { name: 'd', kind: 'keyword-only' },
      { name: 'e', kind: 'keyword-only', default: 'False', annotation: 'bool' },
      { name: 'kw', kind: 'var-keyword' },
    ]);
    assert.equal(fn(definitions, 'f').returns, '"list[int]"');
    assert.deepEqual(fn(definitions, 'g').parameters.map((p) => `${p.name}:${p.kind}`), ['x:positional-or-keyword', 'y:keyword-only']);
  });

  it('orders calls by when they run (arguments first) and leaves out nested scopes', function () {
    const { definitions } = table([
      'class R:',
      '    async def run(self, batch):',
      '        self.kv.pre_forward(self.state.preprocess_state(batch))',
      '        def later():',
      '            self.never_now()',
      '        cb = lambda: self.also_not_now()',
      '        with self.ctx(batch) as out:',
      '            await self.model(batch)',
      '        return out',
      '',
    ].join('\n'));
    const run = fn(definitions, 'R.run');
    assert.equal(run.async, true);
    assert.deepEqual(run.calls.map((c) => c.name), ['preprocess_state', 'pre_forward', 'ctx', 'model']);
    assert.deepEqual(run.calls.map((c) => c.line), [3, 3, 7, 8]);
  });

  it('collects the string literals a function compares, tests membership in, matches or returns; not f-strings', function () {
    const { definitions } = table([
      'def pick(kind, mode):',
      '    if kind == "mooncake":',
      '        return "a"',
      '    elif kind in ("mori", \'nixl\'):',
      '        log("not a candidate")',
      '    match mode:',
      '        case "fast":',
      '            pass',
      '    if kind != f"{mode}-x":',
      '        raise ValueError("unknown")',
      '    return f"{kind}"',
      '',
    ].join('\n'));
    assert.deepEqual(fn(definitions, 'pick').literals.map((l) => l.value), ['mooncake', 'a', 'mori', 'nixl', 'fast']);
  });

  it('marks definitions under if / try / with / loops as conditional, and records assignments, fields and imports', function () {
    const { definitions } = table([
      'from .a import B as C, D',
      'import x.y',
      'import z.w as zw',
      'from m import *',
      'if X:',
      '    def f(): pass',
      'try:',
      '    import fast',
      'except ImportError:',
      '    fast = None',
      '@dataclass',
      'class Req:',
      '    flush_cache: bool = field(default=True)',
      '    name: str',
      '    a = b = 3',
      '    def __init__(self):',
      '        self.extra = 1',
      '',
    ].join('\n'));
    const summary = definitions.map((d) => `${d.kind}:${d.qualname}${d.conditional ? '?' : ''}${d.kind === 'import' ? `<${d.module}${d.name ? `.${d.name}` : ''}` : ''}`);
    assert.deepEqual(summary, ['import:C<.a.B', 'import:D<.a.D', 'import:x<x', 'import:zw<z.w', 'import:*<m', 'function:f?', 'import:fast?<fast', 'assignment:fast?', 'class:Req', 'assignment:Req.flush_cache', 'assignment:Req.name', 'assignment:Req.b', 'assignment:Req.a', 'function:Req.__init__']);
    const field = definitions.find((d) => d.qualname === 'Req.flush_cache');
    assert.equal(field?.kind === 'assignment' && field.fieldDefault, 'True');
    assert.deepEqual(fn(definitions, 'Req.__init__').selfAttributes, ['extra']);
    const cls = definitions.find((d) => d.qualname === 'Req');
    assert.deepEqual(cls?.kind === 'class' && cls.decorators, ['dataclass']);
  });

  it('finds literal needles only inside string literals', function () {
    const { needles } = table('import os\nVLLM_PLUGINS_DOC = 1  # VLLM_PLUGINS\nx = os.environ.get("VLLM_PLUGINS")\np.add_argument("--flag-x")\n', ['VLLM_PLUGINS', '--flag-x', '--absent']);
    assert.deepEqual(needles, [{ needle: 'VLLM_PLUGINS', line: 3, col: 20 }, { needle: '--flag-x', line: 4, col: 16 }]);
  });

  it('reports syntax errors at the innermost error and keeps the intact definitions around them', function () {
    const { definitions, syntaxErrors } = table('def ok(a):\n    return a\n\nclass C:\n    def broken(self)\n        pass\n\ndef after(b):\n    return b\n');
    assert.ok(syntaxErrors.length >= 1);
    assert.ok(syntaxErrors.every((e) => e.line >= 4), JSON.stringify(syntaxErrors));
    assert.deepEqual(definitions.map((d) => d.qualname), ['ok', 'C'], 'the function before the error and the class around it survive recovery');
  });
});
