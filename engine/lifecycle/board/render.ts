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
  return row.stale ? `${row.state} (stale)` : row.state;
}

function renderText(board: Board): string {
  const pins = Object.entries(board.pins).map(([n, p]) => `${n} ${p.version}${p.newestSeen && p.newestSeen !== p.version ? ` (newest seen ${p.newestSeen})` : ''}`).join(', ');
  let out = `board at ${board.at}; ledger seq ${board.ledger.seq}; pins: ${pins}\n`;
  for (const [kind, rows] of groups(board)) {
    out += `\n${plural(kind)}\n`;
    const width = Math.max(...rows.map((r) => r.id.length));
    const sw = Math.max(...rows.map((r) => stateText(r).length));
    for (const r of rows) {
      out += `  ${r.id.padEnd(width)}  ${stateText(r).padEnd(sw)}  since ${day(r.since)}\n`;
      for (const b of r.blockers) out += `  ${' '.repeat(width)}  blocked: ${b}\n`;
      if (r.finding) out += `  ${' '.repeat(width)}  finding: ${r.finding}\n`;
      if (r.reason) out += `  ${' '.repeat(width)}  reason: ${r.reason}\n`;
      if (r.next !== 'none') out += `  ${' '.repeat(width)}  next: ${r.next}\n`;
    }
  }
  return out;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function renderMarkdown(board: Board): string {
  let out = `Board at ${board.at}, ledger seq ${board.ledger.seq}.\n`;
  for (const [kind, rows] of groups(board)) {
    out += `\n### ${plural(kind)}\n\n| contract | state | since | blocked by | next |\n|---|---|---|---|---|\n`;
    for (const r of rows) out += `| \`${r.id}\` | ${cell(stateText(r))}${r.finding ? ` — ${cell(r.finding)}` : ''} | ${day(r.since)} | ${cell(r.blockers.join('; ') || '—')} | ${cell(r.next)} |\n`;
  }
  return out;
}
