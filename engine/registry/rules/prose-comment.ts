import { isScalar, visit, type Scalar } from 'yaml';
import type { RegistryRule } from './rule.js';

/** ` #123`: in a plain (unquoted) scalar, YAML starts a comment here and the text after it is lost. */
const REFERENCE_COMMENT = /\s#(\d+)/;

export const rule: RegistryRule = {
  id: 'prose-comment',
  description: 'Warns when an unquoted text value is cut by a YAML comment that looks like part of it (` #<digits>`, a pull request number).',
  reports: ['proseCutByComment'],
  check({ registry, report }) {
    for (const entry of registry.entries) {
      const text = entry.source.text;
      // Most files hold no ` #<digits>` at all: parse positions only for the ones that do.
      if (!REFERENCE_COMMENT.test(text)) continue;
      const lines = text.split('\n');
      visit(entry.source.doc, {
        Scalar(_key, node: Scalar) {
          if (!isScalar(node) || node.type !== 'PLAIN' || typeof node.value !== 'string' || !node.range) return;
          const comment = node.comment;
          if (typeof comment !== 'string' || !/^\d/.test(comment)) return;
          // The comment follows the value on the line where the value ends.
          const end = entry.source.lines.linePos(node.range[1]);
          const line = lines[end.line - 1] ?? '';
          const at = line.indexOf('#', end.col - 2);
          if (at < 0) return;
          report('proseCutByComment', { entry, range: { line: end.line, col: at + 1, endLine: end.line, endCol: line.length + 1 } }, node.value, `#${comment.trim()}`);
        },
      });
    }
  },
};
