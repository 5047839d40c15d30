/**
 * Keys a JSON body gives twice in one object. `JSON.parse` keeps the last value; an upstream
 * parser may keep the first (or reject, or merge), so a body with `"max_tokens"` twice could be
 * priced on one value and billed on the other when its bytes are forwarded as they are. The
 * gateway refuses such a body.
 *
 * The check runs on every request, so it is two cheap counts: the keys of the parsed value, and
 * the keys of the text (every string followed by a colon, found with `indexOf`, linear in the
 * text whatever it holds). Only when they differ is the text walked again to name the key.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** The index of the quote that closes the string opened at `open`. */
function closingQuote(text: string, open: number): number {
  let end = open + 1;
  for (;;) {
    end = text.indexOf('"', end);
    if (end < 0) return text.length;
    let backslashes = 0;
    for (let b = end - 1; text.charCodeAt(b) === BACKSLASH; b--) backslashes++;
    if ((backslashes & 1) === 0) return end;
    end++;
  }
}

/** How many object keys the (valid JSON) text holds. */
function textKeyCount(text: string): number {
  let keys = 0;
  for (let at = text.indexOf('"'); at >= 0;) {
    const end = closingQuote(text, at);
    let next = end + 1;
    while (isSpace(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === COLON) keys++;
    at = text.indexOf('"', end + 1);
  }
  return keys;
}

/** How many keys the parsed value's objects hold (iterative: no recursion limit on deep bodies). */
function valueKeyCount(value: unknown): number {
  let keys = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    for (const key in node) {
      keys++;
      const item = (node as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
  return keys;
}

type Frame = { kind: 'object'; path: string; keys: Set<string>; key: string | null } | { kind: 'array'; path: string; index: number };

const child = (frame: Frame | undefined): string => {
  if (frame === undefined) return '';
  if (frame.kind === 'array') return `${frame.path}[${frame.index}]`;
  return frame.path === '' ? (frame.key ?? '') : `${frame.path}.${frame.key ?? ''}`;
};

/** Walk the (valid JSON) text and return the path of the first key an object repeats. */
function findRepeated(text: string): string | null {
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        top.key = key;
        if (top.keys.has(key)) return child(top);
        top.keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 123 /* { */) {
      stack.push({ kind: 'object', path: child(stack[stack.length - 1]), keys: new Set(), key: null });
      expectKey = true;
    } else if (c === 91 /* [ */) {
      stack.push({ kind: 'array', path: child(stack[stack.length - 1]), index: 0 });
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      stack.pop();
    } else if (c === 44 /* , */) {
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') top.index++;
      else expectKey = true;
    }
  }
  return null;
}

/** The path of a key the body repeats in one object (`max_tokens`, `messages[0].content`), or null. */
export function repeatedKey(text: string, value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (textKeyCount(text) === valueKeyCount(value)) return null;
  return findRepeated(text);
}
