import type { Predicate, PredicateOperator } from '../../model/index.js';
import type { RegistryRule } from './rule.js';

type Leaf = Extract<Predicate, { op: PredicateOperator }>;

/** Which operand each operator takes. */
const OPERAND: Record<PredicateOperator, 'value' | 'values' | 'none'> = {
  equals: 'value',
  'not-equals': 'value',
  'count-greater-than': 'value',
  'version-less-than': 'value',
  'version-at-least': 'value',
  in: 'values',
  'not-in': 'values',
  present: 'none',
  absent: 'none',
  truthy: 'none',
};

/** Every leaf of a predicate with its path below `at`. */
export function predicateLeaves(p: Predicate, at: ReadonlyArray<string | number>): Array<{ leaf: Leaf; path: ReadonlyArray<string | number> }> {
  if ('all' in p) return p.all.flatMap((q, i) => predicateLeaves(q, [...at, 'all', i]));
  if ('any' in p) return p.any.flatMap((q, i) => predicateLeaves(q, [...at, 'any', i]));
  if ('not' in p) return predicateLeaves(p.not, [...at, 'not']);
  return [{ leaf: p, path: at }];
}

/** What is wrong with a leaf's operands, with the field to point at; undefined when nothing is. */
function operandProblem(leaf: Leaf): { field: string; problem: string } | undefined {
  const wants = OPERAND[leaf.op];
  if (wants === 'value' && leaf.value === undefined) return { field: 'op', problem: "needs 'value'" };
  if (wants === 'values' && leaf.values === undefined) return { field: 'op', problem: "needs 'values'" };
  if (wants !== 'value' && leaf.value !== undefined) return { field: 'value', problem: "takes no 'value'" };
  if (wants !== 'values' && leaf.values !== undefined) return { field: 'values', problem: "takes no 'values'" };
  if (leaf.op === 'count-greater-than' && typeof leaf.value !== 'number') return { field: 'value', problem: 'compares with a number' };
  if ((leaf.op === 'version-less-than' || leaf.op === 'version-at-least') && !/^\d+(\.\d+)*$/.test(String(leaf.value))) {
    return { field: 'value', problem: 'compares with a dotted numeric version' };
  }
  if ('env' in leaf && leaf.op === 'count-greater-than') return { field: 'op', problem: 'cannot count an environment variable (a string)' };
  return undefined;
}

export const rule: RegistryRule = {
  id: 'predicate-operands',
  description: "Each predicate leaf carries the operand its operator reads ('in' has 'values', 'equals' has 'value') and no other.",
  reports: ['predicateOperand'],
  check({ registry, report }) {
    for (const entry of registry.entriesOfKind('rejection')) {
      for (const { leaf, path } of predicateLeaves(entry.contract.when, ['when'])) {
        const problem = operandProblem(leaf);
        if (problem) report('predicateOperand', { entry, path: [...path, problem.field] }, leaf.op, problem.problem);
      }
    }
  },
};
