import type { Edit, Finding } from './registry-fixture.js';

/** A semantic-rule case: edits to the minimal registry and exactly the findings they must produce. */
export interface RuleCase {
  name: string;
  edits: Edit[];
  expect: Finding[];
}

const KEPT = 'hooks/hook.alpha.kept.yaml';
const REMOVED = 'hooks/hook.alpha.removed.yaml';
const ENGINE = 'engines/engine.alpha.yaml';
const GAP = 'gaps/gap.alpha.ordering.yaml';
const REJECTION = 'rejections/rejection.alpha.v2.yaml';
const UP101 = 'upstreams/upstream.alpha.101.yaml';
const UP102 = 'upstreams/upstream.alpha.102.yaml';
const INTERFACE = 'interfaces/interface.alpha.connector.yaml';
const STATEMENT = 'policies/policy.fail-explicitly.yaml';
const LOOKUP_GATE = 'gates/gate.alpha.lookup.yaml';
const PRODUCT = 'policies/policy.product.yaml';
/** A product policy with its own lifecycle and scenario names. */
const product = () =>
  '# yaml-language-server: $schema=../schema/policy.json\nkind: policy\nid: policy.product\ntitle: The product is Alpha\nsource:\n  document: fixture\n  section: product\npolicy:\n  rule: product\n  name: Alpha\n  packagePrefix: alpha\n  envPrefix: ALPHA\n  lifecycles:\n    - warmup\n  scenarios:\n    - name: alpha-warm\n      description: warms the alpha tier\n      needs: gpu\n';

const at = (code: string, file: string, line: number, col: number): Finding => ({ code, file, line, col });

/** A reference engine, for rules about runtime pins. */
const REFERENCE_ENGINE = `# yaml-language-server: $schema=../schema/engine.json
kind: engine
id: engine.beta
title: Beta is a reference implementation
source:
  document: Minimal registry
  section: Pins
name: beta
distribution: beta
role: reference
version: 2.0.0
line: '2.0'
recordedIn: []
lastRecheck: 2026-11-20
`;

export const FAILING: RuleCase[] = [
  { name: 'duplicate-id: two contracts share an id', edits: [{ file: 'hooks/hook.alpha.kept-copy.yaml', copyOf: KEPT }], expect: [at('OKV2011', 'hooks/hook.alpha.kept-copy.yaml', 3, 5), at('OKV3001', 'hooks/hook.alpha.kept.yaml', 3, 5)] },
  { name: 'unresolved-reference: a removal gate names a gate that does not exist', edits: [{ file: KEPT, replace: ['    - gate.alpha.lookup', '    - gate.alpha.lookpu'] }], expect: [at('OKV3002', 'hooks/hook.alpha.kept.yaml', 30, 7)] },
  { name: 'reference-kind: a removal gate names an upstream change', edits: [{ file: KEPT, replace: ['    - gate.alpha.lookup', '    - upstream.alpha.101'] }], expect: [at('OKV3003', 'hooks/hook.alpha.kept.yaml', 30, 7)] },
  { name: 'unknown-engine: an upstream change on an engine nobody pins', edits: [{ file: UP101, replace: ['engine: alpha', 'engine: gamma'] }], expect: [at('OKV3004', 'upstreams/upstream.alpha.101.yaml', 8, 9)] },
  { name: 'engine-pinned: an interface on a reference engine', edits: [{ file: 'engines/engine.beta.yaml', text: REFERENCE_ENGINE }, { file: INTERFACE, replace: ['engine: alpha', 'engine: beta'] }], expect: [at('OKV3005', 'interfaces/interface.alpha.connector.yaml', 8, 9)] },
  { name: 'duplicate-engine: two engine contracts pin the same name', edits: [{ file: 'engines/engine.alpha-again.yaml', copyOf: ENGINE }, { file: 'engines/engine.alpha-again.yaml', replace: ['id: engine.alpha', 'id: engine.alpha-again'] }], expect: [at('OKV3025', 'engines/engine.alpha.yaml', 8, 7)] },
  { name: 'kept-hook-removal-gate: a kept hook without gates', edits: [{ file: KEPT, replace: ['  gates:\n    - gate.alpha.lookup\n', '  gates: []\n'] }], expect: [at('OKV3006', 'hooks/hook.alpha.kept.yaml', 29, 10)] },
  { name: 'kept-hook-removal-gate: a kept hook without an upstream condition', edits: [{ file: KEPT, replace: ['  upstream:\n    - upstream: upstream.alpha.101\n      requires: A released pre-capture callback on the pinned line.\n', '  upstream: []\n'] }], expect: [at('OKV3006', 'hooks/hook.alpha.kept.yaml', 26, 13)] },
  { name: 'removed-hook-coverage: a removed hook covered by nothing', edits: [{ file: REMOVED, replace: ['  coveredBy:\n    - interface.alpha.connector\n', '  coveredBy: []\n'] }], expect: [at('OKV3007', 'hooks/hook.alpha.removed.yaml', 29, 14)] },
  { name: 'removed-hook-coverage: a removed hook without a disposition', edits: [{ file: REMOVED, replace: ['  disposition: The released finish callback cancels and drains.', "  disposition: ' '"] }], expect: [at('OKV3008', 'hooks/hook.alpha.removed.yaml', 28, 16)] },
  { name: 'removed-hook-replacement: a hook removed while its replacement is only proposed', edits: [{ file: REMOVED, replace: ["  status: released\n  upstream: upstream.alpha.102\n  line: '1.2'\n  version: 1.2.0\n", '  status: proposed\n  upstream: upstream.alpha.101\n'] }], expect: [at('OKV3009', 'hooks/hook.alpha.removed.yaml', 18, 11)] },
  { name: 'opt-in-switches: an opt-in hook without switches', edits: [{ file: KEPT, replace: ['  mode: always', '  mode: opt-in\n  switches: []'] }], expect: [at('OKV3010', 'hooks/hook.alpha.kept.yaml', 22, 13)] },
  { name: 'rejection-justified: a rejection justified by a gate only', edits: [{ file: REJECTION, replace: ['  - gap.alpha.ordering', '  - gate.alpha.lookup'] }], expect: [at('OKV3023', 'gaps/gap.alpha.ordering.yaml', 19, 7), at('OKV3011', 'rejections/rejection.alpha.v2.yaml', 20, 3), at('OKV3003', 'rejections/rejection.alpha.v2.yaml', 20, 5)] },
  { name: 'gate-scenario: a scenario the catalogue does not have', edits: [{ file: LOOKUP_GATE, replace: ['scenario: lookup-states', 'scenario: lookup-statez'] }], expect: [at('OKV3012', 'gates/gate.alpha.lookup.yaml', 10, 13)] },
  { name: 'gate-scenario: a GPU scenario on a gate without a GPU', edits: [{ file: LOOKUP_GATE, replace: ['scenario: lookup-states', 'scenario: eager-restore'] }], expect: [at('OKV3013', 'gates/gate.alpha.lookup.yaml', 12, 8)] },
  { name: 'upstream-merge-state: an open change listed in a release', edits: [{ file: UP102, replace: ['state: merged', 'state: open'] }], expect: [at('OKV3014', 'upstreams/upstream.alpha.102.yaml', 10, 8)] },
  { name: 'pin-agreement: the package extra records another version', edits: [{ file: ENGINE, replace: ['    version: 1.2.0\n    locator: pyproject', '    version: 1.1.0\n    locator: pyproject'] }], expect: [at('OKV3015', 'engines/engine.alpha.yaml', 16, 14)] },
  { name: 'pin-agreement: the submodule records another commit', edits: [{ file: ENGINE, replace: ["    commit: '1111111111111111111111111111111111111111'", "    commit: '2222222222222222222222222222222222222222'"] }], expect: [at('OKV3015', 'engines/engine.alpha.yaml', 20, 13)] },
  { name: 'newest-seen: newest seen older than the pin', edits: [{ file: ENGINE, replace: ['  version: 1.3.0', '  version: 1.1.0'] }], expect: [at('OKV3016', 'engines/engine.alpha.yaml', 23, 12)] },
  { name: 'recheck-age: an engine recheck older than the policy allows', edits: [{ file: ENGINE, replace: ['lastRecheck: 2026-11-20', 'lastRecheck: 2026-09-01'] }], expect: [at('OKV3017', 'engines/engine.alpha.yaml', 25, 14)] },
  { name: 'replacement-state: proposed, but the upstream change was closed', edits: [{ file: UP101, replace: ['state: open', 'state: closed'] }], expect: [at('OKV3018', 'gaps/gap.alpha.ordering.yaml', 23, 11), at('OKV3018', 'hooks/hook.alpha.kept.yaml', 23, 11)] },
  { name: 'replacement-state: released in a version the upstream change does not list', edits: [{ file: REMOVED, replace: ['  version: 1.2.0', '  version: 1.2.1'] }], expect: [at('OKV3018', 'hooks/hook.alpha.removed.yaml', 21, 12), at('OKV3030', 'hooks/hook.alpha.removed.yaml', 21, 12)] },
  { name: 'removed-hook-pin: a hook removed while its replacement is released after the pinned version', edits: [{ file: REMOVED, replace: ['  version: 1.2.0', '  version: 1.2.1'] }, { file: UP102, replace: ['releasedIn:\n', "releasedIn:\n  - line: '1.2'\n    version: 1.2.1\n"] }], expect: [at('OKV3030', 'hooks/hook.alpha.removed.yaml', 21, 12)] },
  { name: 'engine-commit: a commit and a reason it is unknown', edits: [{ file: ENGINE, replace: ["line: '1.2'", "line: '1.2'\ncommitUnknown: installed from a wheel"] }], expect: [at('OKV3031', 'engines/engine.alpha.yaml', 14, 1)] },
  { name: 'no cascade: an engine whose commit is not a commit gives its own schema error and no unpinned-engine or unresolved-reference errors', edits: [{ file: ENGINE, replace: ["commit: '1111111111111111111111111111111111111111'\nline", 'commit: unknown\nline'] }], expect: [at('OKV2007', 'engines/engine.alpha.yaml', 12, 9)] },
  { name: 'prose-comment: an unquoted requires cut at #<digits>', edits: [{ file: KEPT, replace: ['      requires: A released pre-capture callback on the pinned line.', '      requires: SGLang #99999 released on the pinned line'] }], expect: [at('OKV3032', 'hooks/hook.alpha.kept.yaml', 28, 24)] },
  { name: 'replacement-line: released on a line that is not the pinned line', edits: [{ file: REMOVED, replace: ["  line: '1.2'\n  version: 1.2.0", "  line: '1.1'\n  version: 1.1.0"] }, { file: UP102, replace: ['releasedIn:\n', "releasedIn:\n  - line: '1.1'\n    version: 1.1.0\n"] }], expect: [at('OKV3019', 'hooks/hook.alpha.removed.yaml', 20, 9)] },
  { name: "predicate-operands: 'in' with 'value' instead of 'values'", edits: [{ file: REJECTION, replace: ['      op: not-equals', '      op: in'] }], expect: [at('OKV3020', 'rejections/rejection.alpha.v2.yaml', 12, 11)] },
  { name: "predicate-operands: 'present' with a value", edits: [{ file: REJECTION, replace: ['      op: count-greater-than', '      op: present'] }], expect: [at('OKV3020', 'rejections/rejection.alpha.v2.yaml', 16, 14)] },
  { name: 'rejection-facts: a fact the predicate reads is not listed, one it never reads is', edits: [{ file: REJECTION, replace: ['  - config.alpha_config.groups', '  - env.ALPHA_OTHER'] }], expect: [at('OKV3021', 'rejections/rejection.alpha.v2.yaml', 22, 3), at('OKV3021', 'rejections/rejection.alpha.v2.yaml', 23, 5)] },
  { name: 'hook-signature: an AROUND hook without a signature', edits: [{ file: KEPT, replace: ['signature:\n  parameters:\n    - name: self\n      kind: positional-or-keyword\n      hasDefault: false\n', ''] }], expect: [at('OKV3022', 'hooks/hook.alpha.kept.yaml', 10, 11)] },
  { name: 'gap-rejection-reciprocal: a gap names a rejection that does not name it back', edits: [{ file: REJECTION, replace: ['  - gap.alpha.ordering', '  - policy.fail-explicitly'] }], expect: [at('OKV3023', 'gaps/gap.alpha.ordering.yaml', 19, 7)] },
  { name: 'version-line: the pinned version is not on the pinned line', edits: [{ file: ENGINE, replace: ["line: '1.2'", "line: '1.3'"] }], expect: [at('OKV3024', 'engines/engine.alpha.yaml', 11, 10), at('OKV3019', 'hooks/hook.alpha.removed.yaml', 20, 9)] },
  { name: 'interface-qualified-by: qualified without gates', edits: [{ file: INTERFACE, replace: ['qualifiedBy:\n  - gate.alpha.model\n', 'qualifiedBy: []\n'] }], expect: [at('OKV3026', 'interfaces/interface.alpha.connector.yaml', 23, 9)] },
  { name: 'statement-gates: enforced by a gate that is not named', edits: [{ file: STATEMENT, replace: ['  gates:\n    - gate.alpha.lookup\n', ''] }], expect: [at('OKV3027', 'policies/policy.fail-explicitly.yaml', 11, 15)] },
  { name: 'gap-keeps-hook: a gap keeps a removed hook', edits: [{ file: GAP, replace: ['    - hook.alpha.kept', '    - hook.alpha.removed'] }], expect: [at('OKV3028', 'gaps/gap.alpha.ordering.yaml', 21, 7)] },
  { name: 'modeline: no modeline', edits: [{ file: STATEMENT, replace: ['# yaml-language-server: $schema=../schema/policy.json\n', ''] }], expect: [at('OKV2010', 'policies/policy.fail-explicitly.yaml', 1, 1)] },
  { name: 'modeline: a modeline naming another kind', edits: [{ file: STATEMENT, replace: ['schema/policy.json', 'schema/gate.json'] }], expect: [at('OKV2010', 'policies/policy.fail-explicitly.yaml', 1, 1)] },
  { name: 'file-name: a file not named by its id', edits: [{ file: 'policies/recheck.yaml', copyOf: 'policies/policy.recheck.yaml' }, { file: 'policies/policy.recheck.yaml', remove: true }], expect: [at('OKV2011', 'policies/recheck.yaml', 3, 5)] },
  { name: 'placeholder: a FILL marker left by `orbitkv new`, in a value and in a comment', edits: [{ file: 'policies/policy.recheck.yaml', replace: ['title: Rechecks are due every 30 days', "title: 'FILL: what the policy says'\n# FILL: pick the age"] }], expect: [at('OKV3029', 'policies/policy.recheck.yaml', 4, 9), at('OKV3029', 'policies/policy.recheck.yaml', 5, 3)] },
  { name: 'hook-lifecycle: a lifecycle neither the Manager nor the product has', edits: [{ file: KEPT, replace: ['    - restore', '    - warmup'] }], expect: [at('OKV3051', 'hooks/hook.alpha.kept.yaml', 19, 7)] },
  { name: 'product-scenario: a product scenario the policy does not list', edits: [{ file: PRODUCT, text: product() }, { file: LOOKUP_GATE, replace: ['  runner: orbitkv\n  scenario: lookup-states', '  runner: product\n  scenario: alpha-cold'] }], expect: [at('OKV3052', 'gates/gate.alpha.lookup.yaml', 10, 13)] },
  { name: 'product-scenario: a GPU product scenario on a gate without a GPU', edits: [{ file: PRODUCT, text: product() }, { file: LOOKUP_GATE, replace: ['  runner: orbitkv\n  scenario: lookup-states', '  runner: product\n  scenario: alpha-warm'] }], expect: [at('OKV3053', 'gates/gate.alpha.lookup.yaml', 12, 8)] },
  { name: 'product-policy: a second product policy', edits: [{ file: PRODUCT, text: product() }, { file: 'policies/policy.product-two.yaml', text: product().replace('id: policy.product', 'id: policy.product-two') }], expect: [at('OKV3050', 'policies/policy.product.yaml', 9, 9)] },
  { name: "product-policy: a product lifecycle and scenario reusing the Manager's names", edits: [{ file: PRODUCT, text: product().replace('    - warmup', '    - restore').replace('alpha-warm', 'lookup-states') }], expect: [at('OKV3054', 'policies/policy.product.yaml', 14, 7), at('OKV3054', 'policies/policy.product.yaml', 16, 13)] },
  { name: 'gate-cells: a matrix axis the scenario has no parameter for', edits: [{ file: LOOKUP_GATE, replace: ['  independent: false\n', '  independent: false\nmatrix:\n  - axis: tier\n    values:\n      - dram\n'] }], expect: [at('OKV3055', 'gates/gate.alpha.lookup.yaml', 18, 11)] },
  { name: 'gate-cells: an axis value the scenario cannot run', edits: [{ file: LOOKUP_GATE, replace: ['  independent: false\n', '  independent: false\nmatrix:\n  - axis: prefix\n    values:\n      - cold\n      - lukewarm\n'] }], expect: [at('OKV3056', 'gates/gate.alpha.lookup.yaml', 21, 9)] },
  { name: 'gate-cells: a stand-in scenario asked for the real engine', edits: [{ file: LOOKUP_GATE, replace: ['hashes: adapter', 'hashes: engine-and-adapter'] }], expect: [at('OKV3057', 'gates/gate.alpha.lookup.yaml', 15, 11)] },
  { name: 'gate-cells: a product scenario module that is not a file in the registry', edits: [{ file: PRODUCT, text: product().replace('      needs: gpu\n', '      needs: cpu\n      module: scenarios/missing.mjs\n') }], expect: [at('OKV3058', 'policies/policy.product.yaml', 19, 15)] },
];

/** Edits each rule must accept: the valid side of the rules whose minimal-registry case is not obvious. */
export const PASSING: RuleCase[] = [
  { name: 'opt-in-switches: an opt-in hook with a switch', edits: [{ file: KEPT, replace: ['  mode: always', "  mode: opt-in\n  switches:\n    - env: ALPHA_WARMUP\n      value: '1'"] }], expect: [] },
  { name: 'kept-hook-removal-gate: an optional hook that may leave by dropping the optimization', edits: [{ file: KEPT, replace: ['  upstream:\n    - upstream: upstream.alpha.101\n      requires: A released pre-capture callback on the pinned line.\n', '  upstream: []\n  dropAlternative:\n    gates:\n      - gate.alpha.model\n    text: Drop the warm-up with matched workload checks.\n'] }], expect: [] },
  { name: 'hook-signature: a removed AROUND hook needs no signature (minimal), a wrapper never does', edits: [{ file: KEPT, replace: ['hookType: AROUND\nsignature:\n  parameters:\n    - name: self\n      kind: positional-or-keyword\n      hasDefault: false\n', 'hookType: wrapper\n'] }], expect: [] },
  { name: 'rejection-justified: a policy justifies a rejection of any engine', edits: [{ file: REJECTION, replace: ['  - gap.alpha.ordering', '  - gap.alpha.ordering\n  - policy.fail-explicitly'] }], expect: [] },
  { name: 'recheck-age: a recheck exactly maxAgeDays old', edits: [{ file: ENGINE, replace: ['lastRecheck: 2026-11-20', 'lastRecheck: 2026-10-30'] }], expect: [] },
  { name: 'rejection-facts: no facts list at all (derived)', edits: [{ file: REJECTION, replace: ['facts:\n  - env.ALPHA_V2\n  - config.alpha_config.groups\n', ''] }], expect: [] },
  { name: 'gate-scenario: a GPU scenario on a GPU gate', edits: [{ file: LOOKUP_GATE, replace: ['scenario: lookup-states\nenvironment:\n  gpu: false', 'scenario: eager-restore\nenvironment:\n  gpu: true'] }], expect: [] },
  { name: 'version-line: a pre-release version on its line', edits: [{ file: UP102, replace: ["  - line: '1.2'\n    version: 1.2.0\n", "  - line: '1.2'\n    version: 1.2.0\n  - line: '1.3'\n    version: 1.3.0rc1\n"] }], expect: [] },
  { name: 'placeholder: FILL inside a longer word is no marker', edits: [{ file: 'policies/policy.recheck.yaml', replace: ['title: Rechecks are due every 30 days', "title: 'BACKFILL_RATE and REFILL: are words'"] }], expect: [] },
  { name: 'hook-lifecycle: a lifecycle the product policy lists', edits: [{ file: PRODUCT, text: product() }, { file: KEPT, replace: ['    - restore', '    - warmup'] }], expect: [] },
  { name: 'product-scenario: a product scenario the policy lists, on a GPU gate', edits: [{ file: PRODUCT, text: product() }, { file: LOOKUP_GATE, replace: ['  runner: orbitkv\n  scenario: lookup-states\nenvironment:\n  gpu: false', '  runner: product\n  scenario: alpha-warm\nenvironment:\n  gpu: true'] }], expect: [] },
  { name: 'gate-cells: axes and values the scenario maps to parameters', edits: [{ file: LOOKUP_GATE, replace: ['  independent: false\n', '  independent: false\nmatrix:\n  - axis: prefix\n    values:\n      - cold\n      - full\n'] }] , expect: [] },
];
