/** Vectors as OpenAI's `encoding_format: "base64"` carries them: little-endian float32, base64. */

export function vectorToBase64(vector: readonly number[]): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((x, i) => view.setFloat32(i * 4, x, true));
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The vector of a base64 embedding; undefined when it is not base64 of whole float32s. */
export function base64ToVector(data: string): number[] | undefined {
  let binary: string;
  try {
    binary = atob(data);
  } catch {
    return undefined;
  }
  if (binary.length % 4 !== 0) return undefined;
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i));
  const out: number[] = [];
  for (let i = 0; i < binary.length; i += 4) out.push(view.getFloat32(i, true));
  return out;
}
