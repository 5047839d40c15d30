/** UTF-8 text ⇄ base64 with Web APIs only (TextEncoder, btoa, atob): runs on every runtime. */

export function utf8ToBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}

/** Decode base64 UTF-8 text; undefined when the input is not valid base64. */
export function base64ToUtf8(data: string): string | undefined {
  let binary: string;
  try {
    binary = atob(data);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}
