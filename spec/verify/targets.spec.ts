import { strict as assert } from 'node:assert';
import type { InterfaceContract } from '../../engine/model/index.js';
import { ModuleIndex } from '../../engine/verify/module-index.js';
import { scanFiles } from '../../engine/verify/pool.js';
import { SymbolResolver } from '../../engine/verify/resolve.js';
import { DEFAULT_MAX_FILE_BYTES } from '../../engine/verify/scan-file.js';
import { readSourceTree } from '../../engine/verify/source-tree.js';
import { TargetChecker, literalNeedles } from '../../engine/verify/targets.js';
import { removeCheckouts, scratchDir, writeTree } from './checkout.js';

const p = (name: string, hasDefault = false) => ({ name, kind: 'positional-or-keyword' as const, hasDefault });

function contract(symbols: InterfaceContract['symbols']): InterfaceContract {
  return { kind: 'interface', id: 'interface.t', title: 't', source: { document: 'd', section: 's' }, engine: 'eng', profile: 'p', symbols, ownership: { engine: 'e', cache: 'c' }, delivery: { mode: 'best-effort', rules: [] }, status: 'consumed', qualifiedBy: [] };
}

describe('verify: checking consumed symbols by kind', function () {
  after(removeCheckouts);

  it('classes are called through __init__ (own, inherited or none); @dataclass and run-time bindings are not guessed', async function () {
    const root = writeTree(scratchDir(), {
      'eng/__init__.py': '',
      'eng/api.py': [
        'from dataclasses import dataclass',
        'class Base:',
        '    def __init__(self, config, role=None):',
        '        self.config = config',
        'class Child(Base):',
        '    @property',
        '    def ready(self) -> bool:',
        '        return True',
        '    lookup = staticmethod(len)',
        'class Empty:',
        '    pass',
        '@dataclass',
        'class Params:',
        '    size: int = 1',
        'class Args:',
        '    not_a_dataclass: bool = False',
        '@dataclass',
        'class BatchResult:',
        '    not_an_args_class: bool = False',
        '@dataclasses.dataclass',
        'class ServerArgs:',
        '    disable_thing: bool = False',
        'FLAG = "--mentioned-only"',
        'def add_cli_args(parser):',
        '    parser.add_argument("--enable-x", "-x", action="store_true")',
        '',
      ].join('\n'),
      'eng/tests/test_cli.py': ['def test_flag(parser):', '    parser.add_argument("--test-only-flag")', 'ARGS = ["--mentioned-only"]', ''].join('\n'),
      'eng/testing/server_args.py': ['import dataclasses', '@dataclasses.dataclass', 'class TestArgs:', '    test_field_flag: bool = False', ''].join('\n'),
    });
    const interfaceContract = contract([
      { target: 'eng.api.Child', kind: 'class', role: 'r', signature: { parameters: [p('config'), p('role', true)] } },
      { target: 'eng.api.Empty', kind: 'class', role: 'r', signature: { parameters: [] } },
      { target: 'eng.api.Params', kind: 'class', role: 'r', signature: { parameters: [p('size', true)] } },
      { target: 'eng.api.Child.ready', kind: 'method', role: 'r' },
      { target: 'eng.api.Child.ready', kind: 'attribute', role: 'r' },
      { target: 'eng.api.Child.lookup', kind: 'method', role: 'r' },
      { target: 'eng.api.Child', kind: 'function', role: 'r' },
      { target: '--enable-x', kind: 'cli-flag', role: 'r' },
      { target: '--disable-thing', kind: 'cli-flag', role: 'r' },
      { target: '--absent-flag', kind: 'cli-flag', role: 'r' },
      { target: '--mentioned-only', kind: 'cli-flag', role: 'r' },
      { target: '--not-a-dataclass', kind: 'cli-flag', role: 'r' },
      { target: '--not-an-args-class', kind: 'cli-flag', role: 'r' },
      { target: '--test-only-flag', kind: 'cli-flag', role: 'r' },
      { target: '--test-field-flag', kind: 'cli-flag', role: 'r' },
      { target: 'ENG_ABSENT', kind: 'env-var', role: 'r' },
    ]);
    const tree = readSourceTree(root, 'eng', [])!;
    const scans = await scanFiles(tree.files, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, needles: literalNeedles([interfaceContract]), bodies: [] }, 0);
    const index = new ModuleIndex(tree, scans);
    const checks = new TargetChecker(new SymbolResolver(index), index).interface(interfaceContract);
    assert.deepEqual(
      checks.map((c) => `${c.target} ${c.expects}: ${c.outcome}${c.reason ? ` ${c.reason}` : ''}`),
      [
        'eng.api.Child class: present',
        'eng.api.Empty class: present',
        'eng.api.Params class: unresolvable-statically generated-init',
        'eng.api.Child.ready method: signature-changed kind-changed',
        'eng.api.Child.ready attribute: present',
        'eng.api.Child.lookup method: unresolvable-statically runtime-assignment',
        'eng.api.Child function: signature-changed kind-changed',
        '--enable-x cli-flag: present',
        '--disable-thing cli-flag: present',
        '--absent-flag cli-flag: missing attribute-missing',
        '--mentioned-only cli-flag: missing attribute-missing',
        '--not-a-dataclass cli-flag: missing attribute-missing',
        '--not-an-args-class cli-flag: missing attribute-missing',
        '--test-only-flag cli-flag: missing attribute-missing',
        '--test-field-flag cli-flag: missing attribute-missing',
        'ENG_ABSENT env-var: missing attribute-missing',
      ],
    );
    assert.equal(checks[0]!.files.length, 1, 'the inherited __init__ is in the same file');
  });
});
