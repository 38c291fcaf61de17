import { strict as assert } from 'node:assert';
import type { Signature } from '../../engine/model/index.js';
import { bindingOf, compareSignature, normalise, renderSignature } from '../../engine/verify/signature.js';
import type { FunctionDefinition, ParsedParameter } from '../../engine/verify/table.js';

function def(parameters: ParsedParameter[], extra: Partial<FunctionDefinition> = {}): FunctionDefinition {
  return { kind: 'function', qualname: 'C.m', conditional: false, start: 0, end: 1, line: 1, col: 1, async: false, decorators: [], parameters, bodyRead: false, calls: [], literals: [], selfAttributes: [], ...extra };
}

const p = (name: string, kind: ParsedParameter['kind'] = 'positional-or-keyword', dflt?: string): ParsedParameter => ({ name, kind, ...(dflt !== undefined ? { default: dflt } : {}) });
const e = (name: string, kind: ParsedParameter['kind'] = 'positional-or-keyword', hasDefault = false, dflt?: string) => ({ name, kind, hasDefault, ...(dflt !== undefined ? { default: dflt } : {}) });

describe('verify: signatures normalised like inspect.signature and compared', function () {
  it('binds away cls for classmethods and self for constructors; keeps self on plain methods and staticmethods have none', function () {
    const m = def([p('self'), p('x')]);
    assert.deepEqual(normalise(m, bindingOf(m, true)).parameters.map((x) => x.name), ['self', 'x']);
    const c = def([p('cls'), p('name')], { decorators: ['classmethod'] });
    assert.equal(bindingOf(c, true), 'classmethod');
    assert.deepEqual(normalise(c, 'classmethod').parameters.map((x) => x.name), ['name']);
    const s = def([p('a')], { decorators: ['torch.no_grad()', 'staticmethod'] });
    assert.equal(bindingOf(s, true), 'staticmethod');
    assert.deepEqual(normalise(def([p('self'), p('cfg'), p('role', 'positional-or-keyword', 'None')]), 'constructor').parameters.map((x) => x.name), ['cfg', 'role']);
    assert.equal(bindingOf(m, false), 'function');
  });

  it('agrees when names, kinds and default presence match; default text, returns and async only when the contract states them', function () {
    const expected: Signature = { parameters: [e('self'), e('req'), e('is_retracted', 'positional-or-keyword', true, 'False')] };
    const found = normalise(def([p('self'), p('req'), p('is_retracted', 'positional-or-keyword', 'False')], { returns: 'None', async: true }), 'method');
    assert.equal(compareSignature(expected, found), undefined);
    assert.equal(compareSignature({ parameters: [e('x', 'positional-or-keyword', true)] }, normalise(def([p('x', 'positional-or-keyword', '{ }')]), 'function')), undefined, 'default text not stated: presence is enough');
  });

  it('lists each difference on its own line and renders both signatures', function () {
    const expected: Signature = { parameters: [e('self'), e('rid'), e('transfers'), e('timeout', 'keyword-only', true, '1.0')], returns: 'list[int]', async: false };
    const found = normalise(def([p('self'), p('request_id'), p('transfers', 'keyword-only'), p('timeout', 'keyword-only', '2.0'), p('kw', 'var-keyword')], { returns: 'LookupTicket', async: true }), 'method');
    const diff = compareSignature(expected, found);
    assert.ok(diff);
    assert.deepEqual(diff.differences, [
      "parameter 2: name 'rid' → 'request_id'",
      "parameter 3 'transfers': positional-or-keyword → keyword-only",
      "parameter 4 'timeout': default 1.0 → 2.0",
      "parameter 5 'kw' (var-keyword) is new",
      'return annotation list[int] → LookupTicket',
      'now async',
    ]);
    assert.equal(diff.expected, '(self, rid, transfers, *, timeout=1.0) -> list[int]');
    assert.equal(diff.found, 'async (self, request_id, *, transfers, timeout=2.0, **kw) -> LookupTicket');
  });

  it('renders positional-only and *args markers', function () {
    assert.equal(renderSignature({ parameters: [e('a', 'positional-only'), e('b'), e('args', 'var-positional'), e('c', 'keyword-only', true)] }, false), '(a, /, b, *args, c=…)');
  });
});
