import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkGrammar, GrammarMismatchError, loadPythonParser, PINNED_GRAMMAR } from '../../engine/verify/index.js';
import { removeCheckouts, scratchDir } from './checkout.js';

describe('verify: the pinned Python grammar is asserted at start-up', function () {
  after(removeCheckouts);

  it('loads the installed tree-sitter-python and accepts it', async function () {
    const parser = await loadPythonParser();
    assert.equal(parser.language?.abiVersion, PINNED_GRAMMAR.abi);
    parser.delete();
    assert.equal(checkGrammar({ name: 'python', abi: PINNED_GRAMMAR.abi, version: PINNED_GRAMMAR.version }), undefined);
  });

  it('names the found and the pinned grammar on an ABI or version mismatch (OKV6001)', function () {
    const abi = checkGrammar({ name: 'python', abi: 14, version: PINNED_GRAMMAR.version });
    assert.equal(abi?.code, 'OKV6001');
    assert.match(abi!.message, /ABI 14/);
    assert.match(abi!.message, new RegExp(`ABI ${PINNED_GRAMMAR.abi}`));
    assert.equal(checkGrammar({ name: 'python', abi: PINNED_GRAMMAR.abi, version: '0.23.6' })?.code, 'OKV6001');
    assert.equal(checkGrammar({ name: 'javascript', abi: PINNED_GRAMMAR.abi, version: PINNED_GRAMMAR.version })?.code, 'OKV6001');
  });

  it('a grammar file that does not load is OKV6002, thrown as GrammarMismatchError', async function () {
    const bogus = join(scratchDir(), 'tree-sitter-python.wasm');
    writeFileSync(bogus, Buffer.from('\0asm\x01\0\0\0garbage'));
    await assert.rejects(loadPythonParser(bogus), (error: unknown) => error instanceof GrammarMismatchError && error.diagnostic.code === 'OKV6002');
  });
});
