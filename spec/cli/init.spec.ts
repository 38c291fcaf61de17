import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { loadRegistry, validateRegistry } from '../../engine/registry/index.js';
import { captureIo } from '../support/io.js';

describe('cli/init', () => {
  const made: string[] = [];
  const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'okv-init-'));
    made.push(dir);
    return dir;
  };
  after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('sets up a registry that validates, whose modelines resolve, and that `new` extends in the right folders', async () => {
    const root = temp();
    const io = captureIo(root);
    assert.equal(await runCli(['init', 'acme', '--name', 'Acme Cache', '--package-prefix', 'acme', '--env-prefix', 'ACM'], io), 0, io.stderr);
    const dir = join(root, 'acme');
    const { registry, diagnostics } = loadRegistry(dir);
    assert.deepEqual([...diagnostics, ...validateRegistry(registry)], []);
    const product = registry.get('policy.product');
    assert.deepEqual(product?.kind === 'policy' ? product.policy : null, { rule: 'product', name: 'Acme Cache', packagePrefix: 'acme', envPrefix: 'ACM' });
    assert.equal(await runCli(['new', 'policy', 'policy.acme.extra', '--registry', dir], captureIo(root)), 0);
    for (const file of ['policies/policy.product.yaml', 'policies/policy.acme.extra.yaml']) {
      const modeline = readFileSync(join(dir, file), 'utf8').split('\n')[0]!;
      const target = modeline.replace('# yaml-language-server: $schema=', '');
      assert.ok(existsSync(join(dirname(join(dir, file)), target)), `${file}: ${target} exists`);
    }
  });

  it('defaults the names from the folder, refuses a non-empty folder and names bad prefixes', async () => {
    const root = temp();
    assert.equal(await runCli(['init', 'tiles'], captureIo(root)), 0);
    const { registry } = loadRegistry(join(root, 'tiles'));
    const product = registry.get('policy.product');
    assert.deepEqual(product?.kind === 'policy' && product.policy.rule === 'product' ? [product.policy.name, product.policy.packagePrefix, product.policy.envPrefix] : null, ['Tiles', 'tiles', 'TILES']);
    writeFileSync(join(root, 'tiles', 'keep.txt'), 'x');
    const refused = captureIo(root);
    assert.equal(await runCli(['init', 'tiles'], refused), 1);
    assert.match(refused.stderr, /not empty/);
    const bad = captureIo(root);
    assert.equal(await runCli(['init', 'other', '--package-prefix', 'Bad_Prefix'], bad), 2);
    assert.ok(!existsSync(join(root, 'other')), 'nothing written on a usage error');
  });
});
