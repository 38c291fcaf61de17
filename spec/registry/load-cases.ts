import type { Finding } from './registry-fixture.js';

/** A reading/schema case: one file's text in an otherwise empty registry, and exactly what it must report. */
export interface LoadCase {
  name: string;
  file: string;
  text: string;
  expect: Finding[];
}

const MODELINE = '# yaml-language-server: $schema=../schema/upstream.json\n';
/** A valid upstream contract; cases break one thing in it. */
export const UPSTREAM = `${MODELINE}kind: upstream
id: upstream.alpha.101
title: 'Alpha #101'
source:
  document: Spec
  section: Load
engine: alpha
pr: 101
state: open
releasedIn: []
checked: 2026-11-20
purpose: A callback.
`;
const FILE = 'upstreams/upstream.alpha.101.yaml';
const swap = (from: string, to: string): string => {
  if (!UPSTREAM.includes(from)) throw new Error(`load case: '${from}' not in UPSTREAM`);
  return UPSTREAM.replace(from, to);
};
const at = (code: string, line: number, col: number, file = FILE): Finding => ({ code, file, line, col });

export const LOAD_CASES: LoadCase[] = [
  { name: 'yaml-syntax: an unclosed flow sequence', file: FILE, text: swap('releasedIn: []', 'releasedIn: [0.1'), expect: [at('OKV1006', 12, 1)] },
  { name: 'yaml-syntax: a tab used for indentation', file: FILE, text: swap('  section: Load', '\tsection: Load'), expect: [at('OKV1006', 7, 1)] },
  { name: 'duplicate-key: the same key twice in a mapping', file: FILE, text: swap('state: open\n', 'state: open\nstate: merged\n'), expect: [at('OKV1007', 11, 1)] },
  { name: 'no-aliases: a billion-laughs bomb', file: FILE, text: `${UPSTREAM}notes: &a [x, x, x, x, x, x, x, x, x]\nx1: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nx2: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nx3: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n`, expect: [at('OKV1008', 14, 11), at('OKV1008', 15, 9), at('OKV1008', 15, 13)] },
  { name: 'no-aliases: an anchor alone', file: FILE, text: swap('purpose: A callback.', 'purpose: &p A callback.'), expect: [at('OKV1008', 13, 13)] },
  { name: 'empty-file: no bytes', file: FILE, text: '', expect: [at('OKV1005', 1, 1)] },
  { name: 'empty-file: only a comment', file: FILE, text: MODELINE, expect: [at('OKV1005', 1, 1)] },
  { name: 'one-document-per-file: two documents', file: FILE, text: `${UPSTREAM}---\nkind: upstream\n`, expect: [at('OKV1009', 14, 1)] },
  { name: 'not-a-mapping: a sequence at the top', file: FILE, text: '- kind: upstream\n', expect: [at('OKV1011', 1, 1)] },
  { name: 'not-a-mapping: a scalar at the top', file: FILE, text: 'upstream\n', expect: [at('OKV1011', 1, 1)] },
  { name: 'unknown-kind: a kind that does not exist', file: FILE, text: swap('kind: upstream', 'kind: upstreem'), expect: [at('OKV2001', 2, 7)] },
  { name: 'missing-kind: no kind at all', file: FILE, text: swap('kind: upstream\n', ''), expect: [at('OKV2002', 2, 1)] },
  { name: 'required-field: a required field left out', file: FILE, text: swap('pr: 101\n', ''), expect: [at('OKV2003', 2, 1)] },
  { name: 'required-field: a nested required field left out', file: FILE, text: swap('  section: Load\n', ''), expect: [at('OKV2003', 5, 1)] },
  { name: 'unknown-field: a misspelt key', file: FILE, text: swap('purpose:', 'purpse:'), expect: [at('OKV2003', 2, 1), at('OKV2004', 13, 1)] },
  { name: 'wrong-type: a number where a list belongs', file: FILE, text: swap('releasedIn: []', 'releasedIn: 3'), expect: [at('OKV2005', 11, 13)] },
  { name: 'wrong-type: an unquoted 40-digit commit parses as a number', file: FILE, text: swap('state: open\n', 'state: merged\nmergeCommit: 1111111111111111111111111111111111111111\n'), expect: [at('OKV2005', 11, 14)] },
  { name: 'not-allowed-value: a state outside the enum', file: FILE, text: swap('state: open', 'state: pending'), expect: [at('OKV2006', 10, 8)] },
  { name: 'bad-format: a date that is not YYYY-MM-DD', file: FILE, text: swap('checked: 2026-11-20', 'checked: 20/11/2026'), expect: [at('OKV2007', 12, 10)] },
  { name: 'schema: a PR number below the minimum', file: FILE, text: swap('pr: 101', 'pr: 0'), expect: [at('OKV2008', 9, 5)] },
  { name: 'no-matching-shape: a union value that is no object', file: 'gates/gate.x.yaml', text: '# yaml-language-server: $schema=../schema/gate.json\nkind: gate\nid: gate.x\ntitle: X\nsource:\n  document: Spec\n  section: Load\nscenario: lookup-states\nenvironment:\n  gpu: false\nqualifies: X\nevidence:\n  hashes: none\n  independent: false\n', expect: [at('OKV2009', 8, 11, 'gates/gate.x.yaml')] },
];
