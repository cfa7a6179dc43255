// No link or `see …` reference in the repository's own text points nowhere. Three checks, over every
// Markdown file (generated and ignored output left out) and the comments of the TypeScript sources:
// - a relative Markdown link (or image, link definition, HTML src/href) names an existing file or
//   folder, resolved against the Markdown file's folder; a #anchor on a Markdown file names one of
//   its headings (GitHub's slugs);
// - a repository path written in prose or code (src/…, test/…, docs/… and the other top folders,
//   ending in a file extension) exists, from the repository root or from the citing file's folder;
// - a "some-doc.md §5.8" citation names a numbered heading of that document.
// The changelog is history (files were renamed since), so only its links are checked. Paths into
// other repositories (upstream Hermes' agent/…, ../shared/design/…) start with none of the top
// folders and are left alone.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../..');

/** Generated or installed trees: not the repository's own text. */
const SKIP_DIRS = new Set(['node_modules', 'dist', 'out', 'test-results', '.bench', '.git']);
/** Where TypeScript sources live; only their comments are read. */
const CODE_DIRS = ['src', 'webview', 'test', 'bench', 'scripts'];
/** A cited path is a repository path when it starts with one of these folders... */
const TOP_DIRS = ['src', 'webview', 'test', 'docs', 'bench', 'scripts', 'schemas', 'examples', 'media', '.ci'];
/** ...and ends in one of these extensions. */
const EXTENSIONS = ['ts', 'md', 'json', 'py', 'sh', 'mjs', 'png', 'db', 'jsonl'];
/** Paths that stand for a kind of file, not one file. */
const PLACEHOLDERS = new Set(['bench/NAME.ts']);
/** Whose paths and section numbers were right when written; only links are checked there. */
const HISTORY = new Set(['CHANGELOG.md']);

interface Line {
  line: number;
  text: string;
}

function walk(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!SKIP_DIRS.has(name)) out.push(...walk(p, keep));
    } else if (keep(name)) out.push(p);
  }
  return out;
}

/** The 1-based line of each offset of text. */
function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

/**
 * The comments of a TypeScript file, line by line: a small lexer that steps over strings, template
 * literals (with their ${} holes) and regular expression literals, so a `//` inside any of them is
 * not taken for a comment.
 */
function commentsOf(text: string): Line[] {
  const lineOf = lineIndex(text);
  const out: Line[] = [];
  const push = (from: number, to: number) => {
    let at = from;
    for (const piece of text.slice(from, to).split('\n')) {
      out.push({ line: lineOf(at), text: piece });
      at += piece.length + 1;
    }
  };
  /** What each open brace belongs to: a block or object, or a template literal's ${ } hole. */
  const braces: ('code' | 'hole')[] = [];
  /** Whether a `/` here would start a regular expression rather than divide. */
  let regexMayStart = true;
  let i = 0;
  /** Steps over a template literal's text from i to its closing backtick or its next ${. */
  const template = () => {
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        return;
      } else if (c === '$' && text[i + 1] === '{') {
        braces.push('hole');
        i += 2;
        regexMayStart = true;
        return;
      } else i++;
    }
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const to = end === -1 ? text.length : end;
      push(i + 2, to);
      i = to;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const to = end === -1 ? text.length : end;
      push(i + 2, to);
      i = to + 2;
    } else if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
      i++;
      regexMayStart = false;
    } else if (c === '`') {
      i++;
      template();
      regexMayStart = false;
    } else if (c === '/' && regexMayStart) {
      let j = i + 1;
      let inClass = false;
      for (; j < text.length && text[j] !== '\n'; j++) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        else if (text[j] === '/' && !inClass) break;
      }
      i = text[j] === '/' ? j + 1 : i + 1;
      regexMayStart = false;
    } else if (c === '{') {
      braces.push('code');
      i++;
      regexMayStart = true;
    } else if (c === '}') {
      i++;
      if (braces.pop() === 'hole') {
        template();
        regexMayStart = false;
      } else regexMayStart = true;
    } else if (/[\w$]/.test(c)) {
      let j = i;
      while (j < text.length && /[\w$]/.test(text[j])) j++;
      regexMayStart = REGEX_AFTER_WORD.has(text.slice(i, j));
      i = j;
    } else {
      if (!/\s/.test(c)) regexMayStart = !/[)\]]/.test(c);
      i++;
    }
  }
  return out;
}

/** Marks the lines of a Markdown file inside fenced code blocks (fence lines included). */
function fenced(lines: string[]): boolean[] {
  let fence: string | undefined;
  return lines.map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (marker !== undefined) fence = marker;
      return marker !== undefined;
    }
    if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    return true;
  });
}

/** The text with fenced code blocks and inline code spans blanked out, line breaks kept. */
function proseOf(markdown: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  const lines = markdown.split('\n');
  const code = fenced(lines);
  // A code span ends at the next run of as many backticks, within its paragraph.
  return lines
    .map((line, k) => (code[k] ? blank(line) : line))
    .join('\n')
    .replace(/(`+)(?:(?!\n\s*\n)[\s\S])*?(?<!`)\1(?!`)/g, blank);
}

/** The text of each heading of a Markdown file, in order, without its markup. */
function headingsOf(markdown: string): string[] {
  const lines = markdown.split('\n');
  const code = fenced(lines);
  return lines.flatMap((line, k) => {
    const h = code[k] ? null : /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    return h ? [h[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '')] : [];
  });
}

/** The anchors GitHub gives a Markdown file's headings. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const heading of headingsOf(markdown)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** The numbered headings of a Markdown file: "5.8 What stored data does not record" gives 5.8. */
function sectionsOf(markdown: string): string[] {
  return headingsOf(markdown).flatMap((h) => /^§?(\d+(?:\.\d+)*)(?:\s|$)/.exec(h)?.[1] ?? []);
}

const cache = new Map<string, string>();
function read(file: string): string {
  let text = cache.get(file);
  if (text === undefined) cache.set(file, (text = readFileSync(file, 'utf8')));
  return text;
}

function rel(file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

function inRepo(file: string): boolean {
  const r = path.relative(root, file);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}

const markdownFiles = walk(root, (name) => name.endsWith('.md'));
const codeFiles = CODE_DIRS.flatMap((d) => (existsSync(path.join(root, d)) ? walk(path.join(root, d), (name) => name.endsWith('.ts')) : []));

/** Every line of text a reference may sit in: all of each Markdown file, the comments of the code. */
function textLines(): { file: string; lines: Line[] }[] {
  return [
    ...markdownFiles
      .filter((f) => !HISTORY.has(rel(f)))
      .map((file) => ({
        file,
        lines: read(file)
          .split('\n')
          .map((text, k) => ({ line: k + 1, text })),
      })),
    ...codeFiles.map((file) => ({ file, lines: commentsOf(read(file)) })),
  ];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const REPO_PATH = new RegExp(String.raw`(?<![\w.\/@~$-])(?:\.\/)?((?:${TOP_DIRS.map(escape).join('|')})\/[^\s\`'"()\[\]|‘’“”]+)`, 'g');
const HAS_EXTENSION = new RegExp(String.raw`\.(?:${EXTENSIONS.join('|')})$`);

/** A cited path without its #anchor, :line suffix and the punctuation of the sentence around it; undefined when it is no single file's path. */
function cleanPath(raw: string): string | undefined {
  let p = raw.replace(/[#?].*$/, '');
  for (let before = ''; before !== p;) {
    before = p;
    p = p.replace(/[.,;:!?>)*_~]+$/, '').replace(/:\d+(?:[-:]\d+)*$/, '');
  }
  if (/[*{}<>$]/.test(p) || !HAS_EXTENSION.test(p) || PLACEHOLDERS.has(p)) return undefined;
  return p;
}

describe('references', () => {
  it('every relative Markdown link names an existing file, and an existing heading for a #anchor', () => {
    const dangling: string[] = [];
    let links = 0;
    for (const file of markdownFiles) {
      const text = read(file);
      const prose = proseOf(text);
      const lineOf = lineIndex(prose);
      const targets: { at: number; target: string }[] = [];
      const inline = /!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
      for (const m of prose.matchAll(inline)) targets.push({ at: m.index, target: m[1].replace(/^<(.*)>$/, '$1') });
      for (const m of prose.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*(\S+)/gm)) targets.push({ at: m.index, target: m[1].replace(/^<(.*)>$/, '$1') });
      for (const m of prose.matchAll(/<(?:a|img|source)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']/gi)) targets.push({ at: m.index, target: m[1] });
      for (const { at, target } of targets) {
        if (/^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith('#')) continue;
        links++;
        const [pathPart, anchor] = target.split('#', 2);
        const decoded = decodeURI(pathPart.replace(/\?.*$/, ''));
        // A leading slash is the repository's root, as GitHub reads it.
        const resolved = decoded.startsWith('/') ? path.join(root, decoded) : path.resolve(path.dirname(file), decoded);
        const where = `${rel(file)}:${lineOf(at)}: ${target}`;
        if (!inRepo(resolved) || !existsSync(resolved)) dangling.push(where);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(read(resolved)).has(decodeURIComponent(anchor).toLowerCase()))
          dangling.push(`${where} (no such heading)`);
      }
    }
    assert.ok(links > 20, `only ${links} relative links found: is the link pattern broken?`);
    assert.deepEqual(dangling, [], `${dangling.length} dangling Markdown link(s):\n${dangling.join('\n')}`);
  });

  it('every repository path cited in prose or comments exists', () => {
    const dangling: string[] = [];
    let cited = 0;
    for (const { file, lines } of textLines()) {
      const seen = new Set<string>();
      for (const { line, text } of lines) {
        for (const m of text.replace(/\bhttps?:\/\/\S+/g, ' ').matchAll(REPO_PATH)) {
          const p = cleanPath(m[1]);
          if (p === undefined) continue;
          cited++;
          const ok = existsSync(path.join(root, p)) || existsSync(path.join(path.dirname(file), p));
          const where = `${rel(file)}:${line}: ${p}`;
          if (!ok && !seen.has(where)) dangling.push(where);
          seen.add(where);
        }
      }
    }
    assert.ok(cited > 200, `only ${cited} cited paths found: is the path pattern broken?`);
    assert.deepEqual(dangling, [], `${dangling.length} cited path(s) that do not exist:\n${dangling.join('\n')}`);
  });

  it('every "doc.md §n" citation names a numbered heading of that document', () => {
    const dangling: string[] = [];
    let cited = 0;
    const citation = /([\w./-]+\.md)(?:\]\(([^)\s]+)\))?[`*)]*\s*§\s?(\d+(?:\.\d+)*)/g;
    for (const { file, lines } of textLines()) {
      const isMarkdown = file.endsWith('.md');
      for (const { line, text } of lines) {
        for (const m of text.matchAll(citation)) {
          const [, name, link, section] = m;
          let target: string | undefined;
          if (link !== undefined && isMarkdown) target = path.resolve(path.dirname(file), link.split('#')[0]);
          else if (TOP_DIRS.some((d) => name.startsWith(`${d}/`))) target = path.join(root, name);
          else if (!name.includes('/')) {
            // A bare name: a sibling of the Markdown file citing it, or (from code) one of docs/.
            const sibling = isMarkdown ? path.join(path.dirname(file), name) : path.join(root, 'docs', name);
            target = isMarkdown || existsSync(sibling) ? sibling : undefined;
          }
          if (target === undefined || !inRepo(target)) continue; // another repository's document
          cited++;
          const where = `${rel(file)}:${line}: ${name} §${section}`;
          if (!existsSync(target)) dangling.push(`${where} (no such file)`);
          else if (!sectionsOf(read(target)).some((s) => s === section || s.startsWith(`${section}.`))) dangling.push(`${where} (no such section)`);
        }
      }
    }
    assert.ok(cited > 20, `only ${cited} § citations found: is the citation pattern broken?`);
    assert.deepEqual(dangling, [], `${dangling.length} § citation(s) of a missing section:\n${dangling.join('\n')}`);
  });

  it('a cited path is read without its sentence, and headings give GitHub anchors and section numbers', () => {
    assert.equal(cleanPath('src/cli/main.ts:12-30).'), 'src/cli/main.ts');
    assert.equal(cleanPath('docs/report.md#findings,'), 'docs/report.md');
    assert.equal(cleanPath('test/e2e/README.md**:'), 'test/e2e/README.md');
    assert.equal(cleanPath('test/**/*.test.ts'), undefined);
    assert.equal(cleanPath('test/<name>.ts'), undefined);
    assert.equal(cleanPath('src/transcripts/'), undefined);
    const doc = '# Report: the `--json` output\n\n## 5.8 What is *not* kept\n```\n# not a heading\n```\n## 5.8 What is not kept\n';
    assert.deepEqual([...anchorsOf(doc)], ['report-the---json-output', '58-what-is-not-kept', '58-what-is-not-kept-1']);
    assert.deepEqual(sectionsOf(doc), ['5.8', '5.8']);
  });

  it('comments are told from strings, templates and regular expressions', () => {
    const code = [
      "const a = '// src/not-a-comment.ts'; // one",
      'const b = `${a}/* src/nor-this.ts */${`x` /* two */}`;',
      'const c = /\\/\\/ [/]/g.test(a) ? 1 / 2 : 3; /* three',
      'four */',
    ].join('\n');
    assert.deepEqual(commentsOf(code), [
      { line: 1, text: ' one' },
      { line: 2, text: ' two ' },
      { line: 3, text: ' three' },
      { line: 4, text: 'four ' },
    ]);
  });
});
