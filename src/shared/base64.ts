// Bytes as base64 text and back, with what browsers and Node both have (btoa, atob): the webview,
// the report page and the engine use the same two functions.

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  // In pieces: String.fromCharCode takes its bytes as arguments, and arguments are bounded.
  for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
