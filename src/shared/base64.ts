// Bytes as base64 text and back, with what browsers and Node both have (btoa, atob): the webview,
// the report page and the engine use the same two functions.

const DIGITS = Uint8Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', (c) => c.charCodeAt(0));
const PAD = 0x3d;

/**
 * Written out digit by digit into bytes, then decoded as text once: a binary string for btoa, built
 * 8 KiB of arguments at a time, cost the index of a 2,000-session home 25 ms a refresh.
 */
export function bytesToBase64(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out[o++] = DIGITS[n >> 18];
    out[o++] = DIGITS[(n >> 12) & 63];
    out[o++] = DIGITS[(n >> 6) & 63];
    out[o++] = DIGITS[n & 63];
  }
  if (i < bytes.length) {
    const two = i + 1 < bytes.length;
    const n = (bytes[i] << 16) | (two ? bytes[i + 1] << 8 : 0);
    out.set([DIGITS[n >> 18], DIGITS[(n >> 12) & 63], two ? DIGITS[(n >> 6) & 63] : PAD, PAD], o);
  }
  return new TextDecoder().decode(out);
}

export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
