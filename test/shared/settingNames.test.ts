import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PROFILES } from '../../src/engine/profile';
import { isProfileName, PROFILE_NAMES, TOKENIZER_NAMES } from '../../src/shared/settingNames';

// The host validates settings against these lists without loading the engine: they must name
// exactly what the engine and the settings' enums know.
describe('setting names', () => {
  const settings = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')).contributes.configuration.properties;

  it('name every profile the engine has, and only those', () => {
    assert.deepEqual([...PROFILE_NAMES].sort(), Object.keys(PROFILES).sort());
    assert.deepEqual(settings['promptInspector.profile'].enum, [...PROFILE_NAMES]);
    assert.equal(isProfileName('hermes-v1'), true);
    assert.equal(isProfileName('toString'), false);
  });

  it('name the tokenizers the setting offers', () => {
    assert.deepEqual(settings['promptInspector.tokenizer'].enum, [...TOKENIZER_NAMES]);
  });
});
