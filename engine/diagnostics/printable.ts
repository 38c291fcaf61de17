/**
 * Text from contracts and the ledger, made safe to print on a terminal or into a CI log: every
 * control character (C0 including CR, LF and TAB, DEL, C1) and every character that reorders or
 * breaks lines (bidirectional overrides and isolates, line and paragraph separators) is shown as
 * an escape (`\x1b`, `\n`, `\u202e`). A field then stays on its line, so no ANSI sequence reaches
 * the terminal and no `::error::` workflow command starts a line of a GitHub Actions log.
 *
 * @example printable('ok\n::error::forged') === 'ok\\n::error::forged'
 */
export function printable(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, escape) : text;
}

const SOURCE = '[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]';
const UNSAFE = new RegExp(SOURCE);
const UNSAFE_ALL = new RegExp(SOURCE, 'g');
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
