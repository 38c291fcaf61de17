/**
 * How deep the arrays and objects of JSON text nest, read from the text before any parse (so no
 * recursion ever sees a nesting bomb); brackets inside strings do not count. The scan stops as
 * soon as the depth passes `stopAbove`, which is all a caller refusing deep input needs to know.
 *
 * @example jsonNestingDepth('{"a":[1,"]"]}') === 2
 */
export function jsonNestingDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest && (deepest = depth) > stopAbove) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
