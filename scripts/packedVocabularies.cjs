// An esbuild plugin for every bundle that counts tokens (the CLI, the engine worker, the test
// bundles): gpt-tokenizer's rank modules, a JavaScript array of 200,000 strings each, are replaced by
// their packed form as base64 text (src/analysis/vocabularyRanks.ts owns the format). A process then
// builds its vocabulary in ~30 ms instead of ~0.45 s, and the bundle is 3 MB smaller.
// CommonJS, so that the bench's TypeScript (bench/childBundle.ts) can require it as the build scripts import it.
const esbuild = require('esbuild');
const { mkdir, writeFile } = require('node:fs/promises');
const { join } = require('node:path');
const { runInThisContext } = require('node:vm');

const RANK_MODULE = /^gpt-tokenizer\/bpeRanks\/(o200k_base|cl100k_base)$/;
const FORMAT = join(__dirname, '..', 'src', 'analysis', 'vocabularyRanks.ts');

/** vocabularyRanks.ts, compiled and evaluated here once: the one definition of the packed format. */
let format;
function formatModule() {
  format ??= compiledFormat();
  return format;
}

async function compiledFormat() {
  const { outputFiles } = await esbuild.build({ entryPoints: [FORMAT], bundle: true, write: false, format: 'cjs', platform: 'neutral', logLevel: 'silent' });
  const module = { exports: {} };
  runInThisContext(`(function (module, exports) {${outputFiles[0].text}\n})`)(module, module.exports);
  return module.exports;
}

/** Module text by vocabulary name, made once per process (the builds of one run share it). */
const sources = new Map();
function packedSource(name) {
  if (!sources.has(name))
    sources.set(
      name,
      formatModule().then(({ packedRanksSource }) => packedRanksSource(require(`gpt-tokenizer/bpeRanks/${name}`).default)),
    );
  return sources.get(name);
}

exports.packedVocabularies = {
  name: 'packed-vocabularies',
  setup(build) {
    build.onResolve({ filter: RANK_MODULE }, ({ path }) => ({ path: RANK_MODULE.exec(path)[1], namespace: 'packed-vocabulary' }));
    build.onLoad({ filter: /.*/, namespace: 'packed-vocabulary' }, async ({ path }) => ({ contents: await packedSource(path), loader: 'js' }));
  },
};

/**
 * The same packed modules for bundles that run from one folder (the test bundles): each vocabulary is
 * written once into `dir` and required from there, so that the test files that count tokens do not
 * each carry and parse its 3 MB again (about a tenth of a second a test process).
 */
exports.packedVocabularyFiles = (dir) => {
  const files = new Map();
  const written = (name) => {
    if (!files.has(name)) {
      const file = join(dir, `${name}.js`);
      files.set(
        name,
        packedSource(name).then(async (source) => {
          await mkdir(dir, { recursive: true });
          await writeFile(file, source);
          return file;
        }),
      );
    }
    return files.get(name);
  };
  return {
    name: 'packed-vocabulary-files',
    setup(build) {
      build.onResolve({ filter: RANK_MODULE }, async ({ path }) => ({ path: await written(RANK_MODULE.exec(path)[1]), external: true }));
    },
  };
};
