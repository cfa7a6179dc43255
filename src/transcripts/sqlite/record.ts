// Records (https://www.sqlite.org/fileformat2.html §2.1): varints, the record header's serial
// types, and the values they describe.

import { SqliteFormatError } from './errors';

export type SqlValue = null | number | bigint | string | Uint8Array;

/** A record's bytes, wherever they lie (on the page, on overflow pages). */
export interface RecordBytes {
  readonly size: number;
  /** Bytes [start, end) of the record. */
  bytes(start: number, end: number): Uint8Array;
  /** An error naming the row and page being read. */
  corrupt(what: string): SqliteFormatError;
}

/** Bytes read by the last varint() call (a module variable: no tuple per call on the hot path). */
export let varintLength = 0;

/** A big-endian base-128 varint of at most 9 bytes (the 9th contributes 8 bits), as a signed 64-bit value. */
export function varint(b: Uint8Array, p: number, end: number): number | bigint {
  let v = 0;
  // Seven bytes hold 49 bits: exact as a number. Longer ones are rare and go through BigInt.
  for (let i = 0; i < 7; i++) {
    if (p + i >= end) throw new SqliteFormatError('database disk image is malformed: a varint runs past its page');
    const byte = b[p + i];
    v = v * 128 + (byte & 0x7f);
    if (byte < 0x80) {
      varintLength = i + 1;
      return v;
    }
  }
  let big = BigInt(v);
  for (let i = 7; i < 9; i++) {
    if (p + i >= end) throw new SqliteFormatError('database disk image is malformed: a varint runs past its page');
    const byte = b[p + i];
    if (i === 8) {
      big = (big << 8n) | BigInt(byte);
      varintLength = 9;
      break;
    }
    big = (big << 7n) | BigInt(byte & 0x7f);
    if (byte < 0x80) {
      varintLength = 8;
      break;
    }
  }
  return safe(BigInt.asIntN(64, big));
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A number when it is exact as one, else the bigint. */
export function safe(v: bigint): number | bigint {
  return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
}

export function u32(b: Uint8Array, p: number): number {
  return ((b[p] << 24) >>> 0) + (b[p + 1] << 16) + (b[p + 2] << 8) + b[p + 3];
}

function serialSize(type: number): number {
  if (type >= 12) return Math.floor((type - 12) / 2);
  return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0][type] ?? 0;
}

function readInt(b: Uint8Array): number | bigint {
  if (b.length === 8) {
    const view = new DataView(b.buffer, b.byteOffset, 8);
    return safe(view.getBigInt64(0, false));
  }
  let v = 0;
  for (const byte of b) v = v * 256 + byte;
  return b[0] >= 0x80 ? v - 256 ** b.length : v;
}

/** Fills `types` and `offsets` (empty) with each value's serial type and where its bytes start. */
export function readRecordHeader(record: RecordBytes, types: number[], offsets: number[]): void {
  if (record.size === 0) throw record.corrupt('an empty record');
  const first = record.bytes(0, Math.min(9, record.size));
  const headerSize = varint(first, 0, first.length);
  if (typeof headerSize !== 'number' || headerSize < varintLength || headerSize > record.size) throw record.corrupt(`a record header of ${headerSize} bytes`);
  const header = record.bytes(0, headerSize);
  let offset = headerSize;
  for (let p = varintLength; p < headerSize;) {
    const type = varint(header, p, headerSize);
    p += varintLength;
    if (typeof type !== 'number' || type === 10 || type === 11) throw record.corrupt(`serial type ${type}`);
    types.push(type);
    offsets.push(offset);
    offset += serialSize(type);
  }
  if (offset > record.size) throw record.corrupt(`a record whose values need ${offset} bytes of a ${record.size}-byte payload`);
}

/** The value of serial type `type` whose bytes start at `at`. */
export function decodeValue(record: RecordBytes, type: number, at: number, text: { decodeText(bytes: Uint8Array): string }): SqlValue {
  switch (type) {
    case 0:
      return null;
    case 8:
      return 0;
    case 9:
      return 1;
    case 7: {
      const b = record.bytes(at, at + 8);
      return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, false);
    }
  }
  if (type <= 6) return readInt(record.bytes(at, at + serialSize(type)));
  const b = record.bytes(at, at + serialSize(type));
  // A copy, and a plain Uint8Array (Buffer.slice would be a view that pins the block).
  return type % 2 === 0 ? new Uint8Array(b) : text.decodeText(b);
}
