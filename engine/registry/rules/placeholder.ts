import { PLACEHOLDER } from '../scaffold.js';
import type { RegistryRule } from './rule.js';

/** `FILL` as a marker: not inside a longer word (`BACKFILL`), followed by `:`, `.`, `_` or a space. */
const MARKER = new RegExp(`(^|[^A-Za-z0-9_])${PLACEHOLDER}[:._ ]`, 'g');

/** The words after the marker, without quotes: `'FILL: what to write'` → `what to write`. */
function whatToWrite(fromMarker: string): string {
  const what = fromMarker.replace(/^FILL[:._ ]\s*/, '').replace(/['"]\s*$/, '').trim();
  return what || fromMarker.trim();
}

export const rule: RegistryRule = {
  id: 'placeholder',
  description: 'Lists every `FILL` marker `orbitkv new` left (in a value or a comment): what is still to decide, with its position.',
  reports: ['placeholderLeft'],
  check({ registry, report }) {
    for (const entry of registry.entries) {
      const text = entry.source.text;
      if (!text.includes(PLACEHOLDER)) continue;
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        // One finding per line, at the first marker; it says what to write.
        MARKER.lastIndex = 0;
        const m = MARKER.exec(line);
        if (!m) return;
        const col = m.index + m[1]!.length + 1;
        report('placeholderLeft', { entry, range: { line: i + 1, col, endLine: i + 1, endCol: line.length + 1 } }, whatToWrite(line.slice(col - 1)));
      });
    }
  },
};
