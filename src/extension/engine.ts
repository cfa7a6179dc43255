// The analysis side of the extension, bundled apart (dist/engine.js) and loaded on first use, so
// activating the extension does not parse the engine, sql.js or the tokenizer's rank tables.

export { Inspection } from '../analysis/inspection';
export { analyze } from '../analysis/report';
export { createTokenCounter } from '../analysis/tokenizer';
export { PROFILES } from '../engine/profile';
export { loadTranscript } from '../transcripts/load';
