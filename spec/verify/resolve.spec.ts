import { strict as assert } from 'node:assert';
import { ModuleIndex } from '../../engine/verify/module-index.js';
import { scanFiles } from '../../engine/verify/pool.js';
import { type Resolution, SymbolResolver } from '../../engine/verify/resolve.js';
import { DEFAULT_MAX_FILE_BYTES } from '../../engine/verify/scan-file.js';
import { findPackageDir, readSourceTree } from '../../engine/verify/source-tree.js';
import { removeCheckouts, scratchDir, writeTree } from './checkout.js';

async function resolverFor(files: Record<string, string>, pkg = 'eng'): Promise<SymbolResolver> {
  const root = writeTree(scratchDir(), files);
  const tree = readSourceTree(root, pkg, []);
  assert.ok(tree);
  const scans = await scanFiles(tree.files, { maxFileBytes: DEFAULT_MAX_FILE_BYTES, needles: [], bodies: [] }, 0);
  return new SymbolResolver(new ModuleIndex(tree, scans));
}

function where(r: Resolution): string {
  assert.ok(r.found, r.found ? '' : `${r.outcome} ${r.reason}: ${r.detail}`);
  return `${r.module.file}:${r.definition?.line ?? 0}`;
}

function why(r: Resolution): string {
  assert.ok(!r.found, 'expected not found');
  return `${r.outcome} ${r.reason}`;
}

describe('verify: resolving dotted targets without running Python', function () {
  after(removeCheckouts);

  it('finds the package at the root, under src/ or python/, or deeper (breadth first)', function () {
    for (const [layout, expected] of [['eng/__init__.py', 'eng'], ['src/eng/__init__.py', 'src/eng'], ['python/eng/__init__.py', 'python/eng'], ['engines/python/eng/__init__.py', 'engines/python/eng']] as const) {
      const root = writeTree(scratchDir(), { [layout]: '', 'docs/eng/readme.txt': 'not a package' });
      assert.equal(findPackageDir(root, 'eng'), expected);
    }
  });

  it('follows __init__ re-exports, relative imports, aliases and nested classes; sees through decorators', async function () {
    const r = await resolverFor({
      'src/eng/__init__.py': 'from .core.runner import Runner as PublicRunner\n',
      'src/eng/core/__init__.py': '',
      'src/eng/core/runner.py': [
        'import torch',
        '',
        'class Runner:',
        '    class Config:',
        '        class Limits:',
        '            def check(self, n: int) -> bool:',
        '                return n > 0',
        '',
        '    @torch.inference_mode()',
        '    @staticmethod',
        '    def step(batch, *, sync=False):',
        '        pass',
        '',
        'LegacyRunner = Runner',
        '',
      ].join('\n'),
    });
    assert.equal(where(r.resolve('eng.PublicRunner.step')), 'src/eng/core/runner.py:11');
    assert.equal(where(r.resolve('eng.core.runner.Runner.Config.Limits.check')), 'src/eng/core/runner.py:6');
    assert.equal(where(r.resolve('eng.core.runner.LegacyRunner.step')), 'src/eng/core/runner.py:11');
    assert.equal(where(r.resolve('eng.core')), 'src/eng/core/__init__.py:0');
  });

  it('finds members inherited from bases in other modules (left to right, depth first)', async function () {
    const r = await resolverFor({
      'eng/__init__.py': '',
      'eng/base.py': 'from abc import ABC\n\nclass Root(ABC):\n    def shared(self):\n        pass\n\nclass Left(Root):\n    pass\n',
      'eng/mixin.py': 'class Mixin:\n    def shared(self):\n        pass\n    def only_mixin(self, x):\n        pass\n',
      'eng/impl.py': 'from eng.base import Left\nfrom . import mixin\n\nclass Impl(Left, mixin.Mixin):\n    pass\n',
    });
    const shared = r.resolve('eng.impl.Impl.shared');
    assert.equal(where(shared), 'eng/base.py:4');
    assert.equal(shared.found && shared.inheritedFrom, 'eng.base.Root');
    assert.equal(where(r.resolve('eng.impl.Impl.only_mixin')), 'eng/mixin.py:4');
    assert.equal(why(r.resolve('eng.impl.Impl.absent')), 'missing attribute-missing');
  });

  it('says missing only when the whole class hierarchy is in the tree', async function () {
    const r = await resolverFor({
      'eng/__init__.py': '',
      'eng/model.py': 'import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n\nclass Plain:\n    pass\n',
    });
    assert.equal(why(r.resolve('eng.model.Net.to')), 'unresolvable external-base');
    assert.equal(why(r.resolve('eng.model.Plain.to')), 'missing attribute-missing');
    assert.equal(why(r.resolve('eng.nomodule.Thing')), 'missing module-missing');
  });

  it('reports what depends on run time as unresolvable, with the reason', async function () {
    const r = await resolverFor({
      'eng/__init__.py': '',
      'eng/_C.cpython-312-x86_64-linux-gnu.so': '',
      'eng/lazy.py': 'def __getattr__(name):\n    return name\n',
      'eng/compat.py': 'import sys\n\nif sys.version_info >= (3, 11):\n    def fast():\n        pass\nelse:\n    def fast():\n        pass\n\ntry:\n    from eng.accel import kernel\nexcept ImportError:\n    kernel = None\n',
      'eng/dynamic.py': 'from collections import namedtuple\n\nregistry = make_registry()\n\nclass Proxy:\n    def __getattr__(self, name):\n        return 1\n\nclass Later:\n    pass\n\nLater.method = lambda self: 1\n',
      'eng/ext.py': 'from torch.nn import Module\n',
    });
    assert.equal(why(r.resolve('eng.lazy.anything')), 'unresolvable module-getattr');
    assert.equal(why(r.resolve('eng.compat.fast')), 'unresolvable conditional-definition');
    assert.equal(why(r.resolve('eng.compat.kernel')), 'unresolvable conditional-definition');
    assert.equal(why(r.resolve('eng.dynamic.registry.lookup')), 'unresolvable runtime-assignment');
    assert.equal(why(r.resolve('eng.dynamic.Proxy.anything')), 'unresolvable class-getattr');
    assert.equal(why(r.resolve('eng._C.gather')), 'unresolvable extension-module');
    assert.equal(why(r.resolve('eng.ext.Module.forward')), 'unresolvable external-import');
    // a class patched after its body: found, but as a run-time binding, never as a def
    const patched = r.resolve('eng.dynamic.Later.method');
    assert.equal(patched.found && patched.definition?.kind, 'assignment');
  });

  it('instance attributes set in __init__ count as attributes', async function () {
    const r = await resolverFor({ 'eng/__init__.py': '', 'eng/conn.py': 'class Conn:\n    def __init__(self, cfg):\n        self.requires_delivery = False\n        self.cfg: dict = cfg\n' });
    assert.equal(where(r.resolve('eng.conn.Conn.requires_delivery')), 'eng/conn.py:2');
    assert.equal(where(r.resolve('eng.conn.Conn.cfg')), 'eng/conn.py:2');
  });
});
