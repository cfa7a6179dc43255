// The agent's own rough token estimator (docs/hermes-behaviour.md §2.3). It decides compaction, so the inspector
// shows it beside the exact tokenizer count.

import { isPartList, type Row } from '../model/rows';
import type { Profile } from './profile';
import { pythonLen, pythonReprMeasured } from './pythonRepr';
import { effectiveSidecar } from './sidecar';
import { utf8Length } from '../model/utf8';

export const DEFAULT_IMAGE_TOKEN_COST = 1500;
const IMAGE_PART_TYPES = new Set(['image', 'image_url', 'input_image']);

/** Keys that exist only for persistence and never reach the provider (PERSISTENCE_ONLY_MESSAGE_FIELDS). */
export const PERSISTENCE_ONLY_MESSAGE_FIELDS: readonly string[] = [
  'timestamp',
  'display_kind',
  'display_metadata',
  '_row_id',
  '_merged_turn_prefix',
  'message_uid',
  '_absorbed_message_uids',
  '_tool_call_uids',
  '_tool_call_uid',
  '_db_row_snapshot',
  '_canonical_row',
];

const CJK =
  /[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u318f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]|[\u{20000}-\u{2fa1f}]/gu;

/** V3: ASCII is (len+3)//4; each CJK/Hangul/fullwidth code point is a token of its own.
 * `ascii` more ASCII characters count as if they were in text (the repr of bytes, measured). */
export function estimateTokensRough(text: string, profile: Profile, ascii = 0): number {
  if (profile.estimator === 'v1') return Math.floor((pythonLen(text) + ascii + 3) / 4);
  let cjk = 0;
  const rest = text.replace(CJK, () => {
    cjk++;
    return '';
  });
  return cjk + Math.floor((utf8Length(rest) + ascii + 3) / 4);
}

function countImages(content: unknown): number {
  if (!isPartList(content)) return 0;
  return content.filter((p) => p && IMAGE_PART_TYPES.has(p.type)).length;
}

function stripImages(content: unknown): unknown {
  if (!isPartList(content)) return content;
  return content.map((p) => (p && IMAGE_PART_TYPES.has(p.type) ? { type: p.type, image: '[stripped]' } : p));
}

/** The dict the estimator measures: the stored row (V1), or its wire shadow (V3). */
function estimatorShadow(row: Row, profile: Profile): Row {
  const shadow: Row = { ...row, content: stripImages(row.content) };
  if (profile.estimator === 'v1') return shadow;
  const sidecar = effectiveSidecar(row);
  if (sidecar !== null) shadow.content = sidecar;
  delete shadow.api_content;
  for (const key of PERSISTENCE_ONLY_MESSAGE_FIELDS) delete shadow[key];
  delete shadow.reasoning_details;
  delete shadow._anthropic_content_blocks;
  if (shadow.reasoning_content !== undefined) delete shadow.reasoning;
  if (typeof shadow.encrypted_content === 'string') shadow.encrypted_content = '';
  return shadow;
}

/** estimate_messages_tokens_rough: the repr lengths over 4, plus a flat cost per image. Bytes
 * values (BLOB columns) are measured, not written out: their repr is ASCII of a known length. */
export function estimateMessagesTokensRough(rows: readonly Row[], profile: Profile): number {
  let images = 0;
  if (profile.estimator === 'v1') {
    let chars = 0;
    for (const row of rows) {
      const { text, bytesLength } = pythonReprMeasured(estimatorShadow(row, profile));
      chars += pythonLen(text) + bytesLength;
      images += countImages(row.content);
    }
    return Math.floor((chars + 3) / 4) + DEFAULT_IMAGE_TOKEN_COST * images;
  }
  let tokens = 0;
  for (const row of rows) {
    const { text, bytesLength } = pythonReprMeasured(estimatorShadow(row, profile));
    tokens += estimateTokensRough(text, profile, bytesLength);
    images += countImages(row.content);
  }
  return tokens + DEFAULT_IMAGE_TOKEN_COST * images;
}
