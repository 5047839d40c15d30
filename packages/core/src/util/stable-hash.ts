/**
 * A fast, stable, non-cryptographic 53-bit string hash (cyrb53). The same string gives the
 * same number on every runtime and every run, which is what sticky routing needs.
 */
export function stableHash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A stable hash of `text` mapped into the open interval (0, 1). */
export function stableUnitInterval(text: string): number {
  return (stableHash53(text) + 0.5) / 2 ** 53;
}
