import assert from 'node:assert/strict';
import { type Diagnostic, codeFrame, diagnosticReport, formatDiagnostics, summaryLine } from '../../engine/diagnostics/index.js';

const SOURCE = ['kind: hook', 'id: hook.x', 'hookType: AROUDN', 'removalGate:', '  gates:', '    - gate.a', 'notes: x'].join('\n');
const read = (file: string) => (file === 'hooks/hook.x.yaml' ? SOURCE : undefined);

const enumError: Diagnostic = {
  code: 'OKV2006',
  severity: 'error',
  message: "'hookType' is 'AROUDN'",
  file: 'hooks/hook.x.yaml',
  range: { line: 3, col: 11, endLine: 3, endCol: 17 },
  contract: 'hook.x',
  hint: 'use AROUND',
};
const blockWarning: Diagnostic = {
  code: 'OKV3017',
  severity: 'warning',
  message: 'stale',
  file: 'hooks/hook.x.yaml',
  // A block mapping's range ends at column 1 of the line after it.
  range: { line: 5, col: 3, endLine: 7, endCol: 1 },
};
const other: Diagnostic = { code: 'OKV1005', severity: 'error', message: 'empty', file: 'gates/empty.yaml', range: { line: 1, col: 1, endLine: 1, endCol: 1 } };

describe('diagnostics/format', () => {
  describe('text', () => {
    const text = formatDiagnostics([enumError, blockWarning, other], { format: 'text', root: '/r', readSource: read });

    it('starts each diagnostic with file:line:col - severity CODE', () => {
      assert.match(text, /^hooks\/hook\.x\.yaml:3:11 - error OKV2006: /m);
      assert.match(text, /^hooks\/hook\.x\.yaml:5:3 - warning OKV3017: /m);
      assert.match(text, /^gates\/empty\.yaml:1:1 - error OKV1005: /m);
    });

    it('underlines exactly the range under the marked line', () => {
      const lines = text.split('\n');
      const marked = lines.findIndex((l) => l.startsWith('> 3 | hookType: AROUDN'));
      assert.ok(marked > 0, text);
      assert.equal(lines[marked - 1], '  2 | id: hook.x');
      assert.equal(lines[marked + 1], `    | ${' '.repeat(10)}^^^^^^`);
      assert.equal(lines[marked + 2], '  4 | removalGate:');
    });

    it('marks every line of a block range, not the line after it', () => {
      assert.match(text, /> 5 \|   gates:\n {4}\| {3}\^{6}\n> 6 \| {5}- gate\.a\n {4}\| {5}\^{8}\n {2}7 \| notes: x/);
    });

    it('prints the hint after the frame and a final count', () => {
      assert.match(text, /  4 \| removalGate:\nhint: use AROUND\n/);
      assert.ok(text.endsWith('\n2 errors, 1 warning in 2 files\n'), text);
    });

    it('prints no frame when the source cannot be read, and no colour unless asked', () => {
      const plain = formatDiagnostics([other], { format: 'text', root: '/nonexistent' });
      assert.doesNotMatch(plain, /\|/);
      assert.doesNotMatch(plain, /\u001b\[/);
      assert.match(formatDiagnostics([enumError], { format: 'text', root: '/r', readSource: read, color: true }), /\u001b\[31m/);
    });

    it('says "no problems in N contracts" when clean', () => {
      assert.equal(formatDiagnostics([], { format: 'text', root: '/r', contracts: 86 }), 'no problems in 86 contracts\n');
    });

    it('shows paths relative to cwd when given', () => {
      assert.match(formatDiagnostics([other], { format: 'text', root: '/w/contracts', cwd: '/w' }), /^contracts\/gates\/empty\.yaml:1:1 /);
    });
  });

  describe('counts', () => {
    it('counts errors, warnings and files', () => {
      assert.equal(summaryLine([enumError]), '1 error in 1 file');
      assert.equal(summaryLine([blockWarning]), '1 warning in 1 file');
      assert.equal(summaryLine([enumError, enumError, blockWarning, other]), '3 errors, 1 warning in 2 files');
      assert.equal(summaryLine([], 1), 'no problems in 1 contract');
    });
  });

  describe('json', () => {
    it('is a stable object: version, flat positions, rule names, counts', () => {
      const parsed = JSON.parse(formatDiagnostics([enumError, blockWarning], { format: 'json', root: '/r', contracts: 3 })) as ReturnType<typeof diagnosticReport>;
      assert.equal(parsed.version, 1);
      assert.deepEqual(parsed.counts, { errors: 1, warnings: 1, files: 1, contracts: 3 });
      assert.deepEqual(parsed.diagnostics[0], {
        code: 'OKV2006',
        severity: 'error',
        rule: 'not-allowed-value',
        message: enumError.message,
        file: 'hooks/hook.x.yaml',
        line: 3,
        col: 11,
        endLine: 3,
        endCol: 17,
        contract: 'hook.x',
        hint: 'use AROUND',
      });
    });
  });

  describe('github', () => {
    it('emits one workflow command per diagnostic, escaped', () => {
      const withComma: Diagnostic = { ...enumError, file: 'a,b:c.yaml', message: '50% done\nnext', hint: undefined };
      const out = formatDiagnostics([withComma, blockWarning], { format: 'github', root: '/r' }).split('\n');
      assert.equal(out[0], '::error file=a%2Cb%3Ac.yaml,line=3,col=11,endLine=3,endColumn=17,title=OKV2006::50%25 done%0Anext');
      assert.match(out[1]!, /^::warning file=hooks\/hook\.x\.yaml,line=5,col=3,endLine=7,endColumn=1,title=OKV3017::stale$/);
    });
  });

  it('codeFrame elides long ranges and clamps ranges past the end', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const frame = codeFrame(lines, { line: 2, col: 1, endLine: 15, endCol: 3 });
    assert.match(frame, /\.\.\. 10 more lines/);
    assert.doesNotMatch(frame, /line 15/);
    assert.match(codeFrame(lines, { line: 40, col: 1, endLine: 40, endCol: 2 }), /> 20 \| line 20/);
  });
});
