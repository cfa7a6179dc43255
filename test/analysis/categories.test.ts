// Where a request's tokens go: the system prompt cut by upstream's section markers, tools by
// toolset, and every request of every example split into categories that sum to what it sent.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { systemCategories, systemSections, toolCategories, toolCategory } from '../../src/analysis/categories';
import { analyze } from '../../src/analysis/report';
import { createTokenCounter } from '../../src/analysis/tokenizer';
import { PROFILES } from '../../src/engine/profile';
import { loadTranscript } from '../../src/transcripts/load';
import { example } from '../cli/support';

const RULE = '═'.repeat(46);
// The tiers as build_system_prompt_parts joins them (hermes-usage.md §5): stable, context, volatile.
const IDENTITY = 'You are Hermes Agent, an intelligent AI assistant created by Nous Research.';
const GUIDANCE = 'You have persistent memory across sessions. Save durable facts using the memory tool.';
const SKILLS = '## Skills (mandatory)\nScan the skills below.\n<available_skills>\n  review: code review checklist\n</available_skills>';
const AFTER_SKILLS = 'Only proceed without loading a skill if genuinely none are relevant to the task.';
const CONTEXT =
  '# Project Context\n\nThe following project context files have been loaded and should be followed:\n\n## AGENTS.md\n\nRun npm test before committing.';
const MEMORY = `${RULE}\nMEMORY (your personal notes) [12% — 264/2,200 chars]\n${RULE}\nThe repo uses pnpm\n§\nCI runs on Node 20`;
const USER = `${RULE}\nUSER PROFILE (who the user is) [4% — 55/1,375 chars]\n${RULE}\nName is Ada; prefers short answers`;
const SESSION = 'Conversation started: Friday, September 18, 2026\nModel: anthropic/claude-sonnet-4.6\nProvider: openrouter\nPlatform: cli';
const PROMPT = [IDENTITY, GUIDANCE, SKILLS, AFTER_SKILLS, CONTEXT, MEMORY, USER, SESSION].join('\n\n');

describe('token categories', () => {
  it('cut the system prompt at the sections upstream writes, nothing lost', () => {
    const sections = systemSections(PROMPT);
    assert.equal(sections.map((s) => s.text).join(''), PROMPT);
    assert.deepEqual(
      sections.map((s) => s.section),
      ['system/stable', 'system/skills-index', 'system/stable', 'system/context-files', 'system/memory', 'system/user-profile', 'system/session'],
    );
    const of = (name: string): string => sections.find((s) => s.section === name)?.text ?? '';
    assert.equal(of('system/skills-index'), SKILLS);
    assert.ok(of('system/context-files').includes('Run npm test'));
    assert.ok(of('system/memory').startsWith(RULE) && of('system/memory').includes('CI runs on Node 20'));
    assert.ok(of('system/user-profile').startsWith(RULE) && of('system/user-profile').includes('Ada'));
    assert.equal(of('system/session'), SESSION);
  });

  it('leave a prompt without markers whole in the stable tier, and sum to the whole count', () => {
    const counter = createTokenCounter('o200k_base');
    const count = (t: string): number => counter.count(t);
    assert.deepEqual(systemSections('You are a helpful assistant.'), [{ section: 'system/stable', text: 'You are a helpful assistant.' }]);
    const total = count(PROMPT);
    const parts = systemCategories(PROMPT, total, count);
    assert.equal(
      Object.values(parts).reduce((a, b) => a + b, 0),
      total,
    );
    assert.ok(Object.values(parts).every((n) => n > 0));
  });

  it('end the session block after its own lines: text a store keeps after it is not the session’s', () => {
    const rules = '## Tool use\n- Read a file before you edit it.';
    const sections = systemSections(`${IDENTITY}\n\n${SESSION}\n\n${rules}`);
    assert.deepEqual(
      sections.map((s) => [s.section, s.text]),
      [
        ['system/stable', `${IDENTITY}\n\n`],
        ['system/session', SESSION],
        ['system/stable', `\n\n${rules}`],
      ],
    );
  });

  it('a marker quoted inside an earlier section does not cut it', () => {
    const quoting = `${IDENTITY}\n\n${CONTEXT}\nDocs mention "Conversation started: " lines.\n\n${SESSION}`;
    const sections = systemSections(quoting);
    assert.deepEqual(
      sections.map((s) => s.section),
      ['system/stable', 'system/context-files', 'system/session'],
    );
    assert.equal(sections.at(-1)?.text, SESSION, 'the last block at a line start is the session block');
    assert.ok(sections[1].text.includes('Docs mention'));
  });

  it('group tool schemas by MCP server where the name tells', () => {
    const tool = (name: string): unknown => ({ type: 'function', function: { name, parameters: { type: 'object' } } });
    assert.equal(toolCategory(tool('terminal')), 'tools/builtin');
    assert.equal(toolCategory(tool('mcp_github_create_issue')), 'tools/mcp:github');
    assert.equal(toolCategory(null), 'tools/builtin');
    const counter = createTokenCounter('o200k_base');
    const parts = toolCategories([tool('terminal'), tool('mcp_github_create_issue'), tool('mcp_github_list')], (t) => counter.count(t));
    assert.deepEqual(Object.keys(parts), ['tools/builtin', 'tools/mcp:github']);
    assert.equal(
      parts['tools/mcp:github'],
      counter.count(JSON.stringify(tool('mcp_github_create_issue'))) + counter.count(JSON.stringify(tool('mcp_github_list'))),
    );
  });

  it('split every request of every example into categories summing to what it sent, plus its tools', async () => {
    const counter = createTokenCounter('o200k_base');
    const files = ['rotation/state.db', 'in-place/state.db', 'home/state.db', 'billed/state.db', 'trace', 'sidecars'].flatMap((e) =>
      e.endsWith('.db')
        ? [example(e)]
        : readdirSync(example(e))
            .filter((n) => /\.(json|jsonl)$/.test(n) && !n.startsWith('truth'))
            .map((n) => join(example(e), n)),
    );
    let requests = 0;
    const seen = new Set<string>();
    for (const file of files) {
      const { report } = analyze(await loadTranscript(file), { profile: PROFILES['hermes-current'], counter, messages: false });
      for (const r of report.requests) {
        const entries = Object.entries(r.categories);
        const tools = entries.filter(([k]) => k.startsWith('tools/')).reduce((a, [, v]) => a + v, 0);
        assert.equal(entries.reduce((a, [, v]) => a + v, 0) - tools, r.inputTokens, `${file} request ${r.index}`);
        assert.ok(
          entries.every(([, v]) => Number.isInteger(v) && v > 0),
          `${file} request ${r.index}: ${JSON.stringify(r.categories)}`,
        );
        for (const [k] of entries) seen.add(k);
        requests++;
      }
    }
    assert.ok(requests > 100);
    for (const k of [
      'system/stable',
      'system/session',
      'history/user',
      'history/assistant',
      'history/tool',
      'notes/memory',
      'notes/plugin',
      'current-user',
      'tools/builtin',
    ]) {
      assert.ok(seen.has(k), `some example shows ${k}`);
    }
  });
});
