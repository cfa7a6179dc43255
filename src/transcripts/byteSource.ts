// The bytes of an input file, read by offset: readers take this, never a path or a file descriptor,
// so they stay pure and a test can hand them an in-memory buffer.

export interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes at `offset`; fewer only at the end of the file. */
  read(offset: number, length: number): Uint8Array;
  /** Whether the bytes at `offset` are `bytes`, read without keeping them (a file read again compares megabytes). */
  holds(offset: number, bytes: Uint8Array): boolean;
}

export function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: (offset, length) => bytes.subarray(offset, offset + length),
    holds: (offset, expected) => offset + expected.length <= bytes.length && Buffer.compare(bytes.subarray(offset, offset + expected.length), expected) === 0,
  };
}
