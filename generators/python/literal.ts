/**
 * Data crosses into generated Python only through these escapers: contract text is never
 * spliced into source. Every string becomes an ASCII-only literal, so quotes, backslashes,
 * newlines, triple quotes, braces, NUL and non-ASCII stay data whatever the YAML held.
 */

/** JSON text with every non-ASCII UTF-16 unit escaped: ASCII only, same value in JS and Python's `json`. */
export function asciiJson(value: unknown, indent?: number): string {
  return escapeNonAscii(JSON.stringify(value, null, indent));
}

function escapeNonAscii(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * ASCII JSON as lines for review: the top-level object one key per line, nested objects one
 * more level, and every array one element (one contract, one hook) per line. Joined with
 * newlines it is valid JSON of the same value.
 */
export function asciiJsonLines(value: unknown): string[] {
  const lines: string[] = [];
  const emit = (v: unknown, depth: number, prefix: string, suffix: string): void => {
    const pad = ' '.repeat(depth);
    if (Array.isArray(v) && v.length > 0 && depth <= 2) {
      lines.push(`${pad}${prefix}[`);
      v.forEach((e, i) => lines.push(`${pad} ${escapeNonAscii(JSON.stringify(e))}${i < v.length - 1 ? ',' : ''}`));
      lines.push(`${pad}]${suffix}`);
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0 && depth <= 1) {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      lines.push(`${pad}${prefix}{`);
      entries.forEach(([k, x], i) => emit(x, depth + 1, `${escapeNonAscii(JSON.stringify(k))}: `, i < entries.length - 1 ? ',' : ''));
      lines.push(`${pad}}${suffix}`);
    } else lines.push(`${pad}${prefix}${escapeNonAscii(JSON.stringify(v) ?? 'null')}${suffix}`);
  };
  emit(value, 0, '', '');
  return lines;
}

/**
 * A double-quoted Python `str` literal that evaluates to exactly `text` (astral characters as
 * `\U` escapes, lone surrogates kept as lone surrogates).
 */
export function pyStringLiteral(text: string): string {
  // Printable ASCII (all of the data modules' JSON lines) only needs quotes and backslashes escaped.
  if (PRINTABLE_ASCII.test(text)) return `"${text.replace(/[\\"]/g, '\\$&')}"`;
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        const cp = (unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
        out += `\\U${cp.toString(16).padStart(8, '0')}`;
        i++;
        continue;
      }
    }
    out += escapeUnit(unit);
  }
  return `${out}"`;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function escapeUnit(unit: number): string {
  switch (unit) {
    case 0x5c: return '\\\\';
    case 0x22: return '\\"';
    case 0x0a: return '\\n';
    case 0x0d: return '\\r';
    case 0x09: return '\\t';
  }
  if (unit < 0x20 || unit === 0x7f) return `\\x${unit.toString(16).padStart(2, '0')}`;
  if (unit > 0x7f) return `\\u${unit.toString(16).padStart(4, '0')}`;
  return String.fromCharCode(unit);
}

/**
 * A Python expression evaluating to `value`: `json.loads(...)` over one literal per line of
 * indented ASCII JSON (readable in review, exact in value). The module must `import json`.
 */
export function pyJsonExpression(value: unknown): string {
  const lines = asciiJsonLines(value);
  // Each line's literal ends with an escaped newline (except the last), keeping the JSON readable.
  const parts = lines.map((line, i) => {
    const literal = pyStringLiteral(line);
    return `    ${i < lines.length - 1 ? `${literal.slice(0, -1)}\\n"` : literal}`;
  });
  return `json.loads(\n${parts.join('\n')}\n)`;
}

/** A TOML basic string for `text` (metadata values that are already pattern-checked, escaped anyway). */
export function tomlString(text: string): string {
  return `"${text.replace(/[\\"\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}
