/** Character classes as char-code tests: the scanners run on char codes, never on regex backtracking. */

export const isDigit = (c: number): boolean => c >= 48 && c <= 57;
export const isUpper = (c: number): boolean => c >= 65 && c <= 90;
export const isLower = (c: number): boolean => c >= 97 && c <= 122;
export const isAlpha = (c: number): boolean => isUpper(c) || isLower(c);
export const isAlnum = (c: number): boolean => isDigit(c) || isAlpha(c);
export const isHex = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
/** Letters, digits and underscore: what continues a word or an identifier. */
export const isWord = (c: number): boolean => isAlnum(c) || c === 95;

/** The char code at `i`, or -1 outside the text (a boundary). */
export const at = (text: string, i: number): number => (i < 0 || i >= text.length ? -1 : text.charCodeAt(i));

/** Luhn checksum over the digits of `s` (other characters skipped). */
export function luhnValid(s: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) continue;
    let d = c - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}
