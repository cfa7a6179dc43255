// An esbuild plugin for every bundle that counts tokens (the CLI, the engine worker, the test
// bundles, the bench's children): gpt-tokenizer's rank modules, a JavaScript array of 200,000 strings
// each, are replaced by a module that reads their packed form from a binary file
// (src/analysis/vocabularyRanks.ts owns the format). A process then builds its vocabulary in ~30 ms
// instead of ~0.45 s. The file sits beside the bundle (`dist/o200k_base.ranks`), read through the
// bundle's __dirname; held in the bundle as base64 text it cost every process that loads the bundle
// ~90 ms to read, compile and decode, whether it counted tokens or not.
// CommonJS, so that the bench's TypeScript (bench/childBundle.ts) can require it as the build scripts import it.
const esbuild = require('esbuild');
const { mkdir, writeFile } = require('node:fs/promises');
const { dirname, join } = require('node:path');
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

/** A vocabulary's packed bytes, made once per process (the builds of one run share them). */
const packed = new Map();
function packedFile(name) {
  if (!packed.has(name))
    packed.set(
      name,
      formatModule().then(({ packedRanksFile }) => packedRanksFile(require(`gpt-tokenizer/bpeRanks/${name}`).default)),
    );
  return packed.get(name);
}

/**
 * `name`'s packed file written at `path`, once per process: the CLI's and the engine's builds share
 * dist/ and would otherwise write the same file twice, at the same time.
 */
const written = new Map();
function writtenOnce(path, name) {
  if (!written.has(path))
    written.set(
      path,
      packedFile(name).then(async (bytes) => {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, bytes);
      }),
    );
  return written.get(path);
}

/**
 * The plugin. Without `dir`, each vocabulary's file is written into the bundle's own folder and read
 * from the bundle's __dirname (what ships: the bundle and its files move together). With `dir` (the
 * test bundles, one folder for dozens of bundles at different depths), it is written there once and
 * read by its absolute path.
 */
exports.packedVocabularies = (dir) => ({
  name: 'packed-vocabularies',
  setup(build) {
    const { outdir, outfile } = build.initialOptions;
    const into = dir ?? outdir ?? dirname(outfile);
    build.onResolve({ filter: RANK_MODULE }, ({ path }) => ({ path: RANK_MODULE.exec(path)[1], namespace: 'packed-vocabulary' }));
    build.onLoad({ filter: /.*/, namespace: 'packed-vocabulary' }, async ({ path: name }) => {
      const file = `${name}.ranks`;
      await writtenOnce(join(into, file), name);
      const where = dir ? JSON.stringify(join(dir, file)) : `require("path").join(__dirname, ${JSON.stringify(file)})`;
      return { contents: `module.exports = { packed: require("fs").readFileSync(${where}) };\n`, loader: 'js' };
    });
  },
});
