import { printable as p } from '../../diagnostics/printable.js';
import type { Board, BoardRow } from './board.js';

export type BoardFormat = 'text' | 'markdown' | 'json';

const day = (iso: string | undefined) => (iso ? iso.slice(0, 10) : '-');

/** The board as text (a table per kind), GitHub markdown, or JSON. */
export function renderBoard(board: Board, format: BoardFormat): string {
  if (format === 'json') return `${JSON.stringify(board, null, 2)}\n`;
  if (format === 'markdown') return renderMarkdown(board);
  return renderText(board);
}

function groups(board: Board): [string, BoardRow[]][] {
  const map = new Map<string, BoardRow[]>();
  for (const row of board.rows) {
    const list = map.get(row.kind);
    if (list) list.push(row);
    else map.set(row.kind, [row]);
  }
  return [...map.entries()];
}

/** A kind's heading: its plural. */
const plural = (kind: string) => (kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : `${kind}s`);

function stateText(row: BoardRow): string {
  return p(row.stale ? `${row.state} (stale)` : row.state);
}

function renderText(board: Board): string {
  // Contract and ledger text is printed through `printable` (p): one field, one line, no control characters.
  const pins = Object.entries(board.pins).map(([n, pin]) => `${n} ${pin.version}${pin.newestSeen && pin.newestSeen !== pin.version ? ` (newest seen ${pin.newestSeen})` : ''}`).join(', ');
  let out = `board at ${p(board.at)}; ledger seq ${board.ledger.seq}; pins: ${p(pins)}\n`;
  for (const [kind, rows] of groups(board)) {
    out += `\n${plural(kind)}\n`;
    const width = Math.max(...rows.map((r) => p(r.id).length));
    const sw = Math.max(...rows.map((r) => stateText(r).length));
    for (const r of rows) {
      out += `  ${p(r.id).padEnd(width)}  ${stateText(r).padEnd(sw)}  since ${p(day(r.since))}\n`;
      for (const b of r.blockers) out += `  ${' '.repeat(width)}  blocked: ${p(b)}\n`;
      if (r.finding) out += `  ${' '.repeat(width)}  finding: ${p(r.finding)}\n`;
      if (r.reason) out += `  ${' '.repeat(width)}  reason: ${p(r.reason)}\n`;
      if (r.next !== 'none') out += `  ${' '.repeat(width)}  next: ${p(r.next)}\n`;
    }
  }
  return out;
}

const cell = (text: string) => p(text).replace(/\|/g, '\\|');

function renderMarkdown(board: Board): string {
  let out = `Board at ${p(board.at)}, ledger seq ${board.ledger.seq}.\n`;
  for (const [kind, rows] of groups(board)) {
    out += `\n### ${plural(kind)}\n\n| contract | state | since | blocked by | next |\n|---|---|---|---|---|\n`;
    for (const r of rows) out += `| \`${cell(r.id)}\` | ${cell(stateText(r))}${r.finding ? ` — ${cell(r.finding)}` : ''} | ${day(r.since)} | ${cell(r.blockers.join('; ') || '—')} | ${cell(r.next)} |\n`;
  }
  return out;
}
