// Builds the static site into web/dist from web/src and the wasm build (build-wasm/wasm):
//   dist/                      the hosted page: js/main.js (the page) and js/engine-worker.js (the worker with
//                              the core engine's glue) bundled and minified, style.css minified; dist/engine/
//                              holds the core module (loaded first) and the whole engine (loaded by a search)
//   dist/shardcalc-standalone.html   one self-contained file (JS and wasm inlined) that works from file://
// SHARDCALC_WASM_DIR and SHARDCALC_DIST choose other folders (to build a page from another wasm build
// without touching web/dist).
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSchemaModule } from './schema-module.mjs';

const web = dirname(fileURLToPath(import.meta.url));
const root = join(web, '..');
const src = join(web, 'src');
const dist = process.env.SHARDCALC_DIST ? resolve(process.env.SHARDCALC_DIST) : join(web, 'dist');
const wasmDir = process.env.SHARDCALC_WASM_DIR ? resolve(process.env.SHARDCALC_WASM_DIR) : join(root, 'build-wasm', 'wasm');

// The page's view of the engine's scenario schema (js/schema.js: field types, choices, defaults), asked of the whole
// engine built here, so the page's catalogue (js/fields.js) holds no copy of the engine's lists.
{
  const { default: createShardcalc } = await import(join(wasmDir, 'shardcalc.mjs'));
  const engine = await createShardcalc({ wasmBinary: await readFile(join(wasmDir, 'shardcalc.wasm')) });
  writeSchemaModule(engine.schema());
}

await rm(dist, { recursive: true, force: true });
await mkdir(join(dist, 'engine'), { recursive: true });
await cp(src, dist, { recursive: true });
// The two engine modules (wasm/CMakeLists.txt): the core (no glue: js/core-engine.js) answers the first
// result, the whole engine (embind glue) searches and imports.
await writeFile(join(dist, 'engine', 'shardcalc.mjs'), withoutEval(await readFile(join(wasmDir, 'shardcalc.mjs'), 'utf8')));
for (const name of ['shardcalc-core', 'shardcalc']) await copyFile(join(wasmDir, `${name}.wasm`), join(dist, 'engine', `${name}.wasm`));
// The published plans' sources ({id: source}): the core leaves them out (engine/CMakeLists.txt), and the page fetches
// this file when a plan is chosen from the menu, not when it opens (page budget: docs/performance.md).
const planDir = join(root, 'presets', 'plans');
const planSources = {};
for (const file of (await readdir(planDir)).filter((f) => f.endsWith('.json')).sort())
  planSources[file.slice(0, -5)] = JSON.parse(await readFile(join(planDir, file), 'utf8')).source;
await mkdir(join(dist, 'presets'), { recursive: true });
await writeFile(join(dist, 'presets', 'plan-sources.json'), JSON.stringify(planSources));

// The page's Content-Security-Policy allows no JavaScript eval. The glue is linked with
// -sDYNAMIC_EXECUTION=0 (wasm/CMakeLists.txt), with which Emscripten 3.1.6's embind makes its
// wrappers without `new Function`; a glue that still generates code fails the build here rather
// than the page in the browser.
function withoutEval(glue) {
  const left = /new Function\(|new_\(Function|\beval\(/.exec(glue);
  if (left) throw new Error(`web/build.mjs: the engine glue still generates code ("${left[0]}"), which the page's CSP refuses; link it with -sDYNAMIC_EXECUTION=0`);
  return glue;
}

// The Content-Security-Policy of a built page: its <meta http-equiv> element.
const CSP_META = /<meta http-equiv="Content-Security-Policy" content="[^"]*">/;
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

// Standalone: bundle the page and the worker separately (the worker becomes a Blob), inline the
// stylesheet, and pass the wasm bytes as base64 so nothing is fetched.
// For the workers: the glue without its Node-only prelude (wasm/node_esm_prelude.js, whose top-level
// await only a module can hold, and whose imports of node: modules a browser cannot load); a browser
// worker skips that block anyway.
const withoutNodePrelude = {
  name: 'without-node-prelude',
  setup(b) {
    b.onLoad({ filter: /shardcalc\.mjs$/ }, async (args) => {
      const glue = await readFile(args.path, 'utf8');
      const start = glue.indexOf('// Under Node only');
      const end = glue.indexOf('var createShardcalc');
      if (start !== 0 || end < 0) throw new Error('web/build.mjs: the engine glue does not start with the Node prelude');
      return { contents: `var require, __dirname;\n${glue.slice(end)}`, loader: 'js' };  // never set in a browser
    });
  },
};

// The single file's worker has one engine, the whole one, bundled in (engine-worker.js starts it from
// the bytes the page hands it, and searches with it).
async function bundle(entry, format = 'esm', { plugins = format === 'iife' ? [withoutNodePrelude] : [], external = [], define = {} } = {}) {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    format,
    plugins,
    define,
    write: false,
    minify: true,
    platform: 'browser',
    external: ['node:*', ...external],
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}
const pageJs = await bundle(join(dist, 'js', 'main.js'));
// The worker as a classic script: Chromium does not start a module worker from a blob: URL of a
// file:// page (an opaque origin). Without import.meta the glue needs locateFile, which the worker
// passes whenever it is handed the wasm bytes.
const workerJs = await bundle(join(dist, 'js', 'engine-worker.js'), 'iife');
const wasmBase64 = (await readFile(join(dist, 'engine', 'shardcalc.wasm'))).toString('base64');
const css = await readFile(join(dist, 'style.css'), 'utf8');
// The page's HTML comments are for its maintainers: neither built page ships them.
const withoutComments = (page) => page.replace(/<!--[\s\S]*?-->\n?/g, '');
await writeFile(join(dist, 'index.html'), withoutComments(await readFile(join(dist, 'index.html'), 'utf8')));
let html = await readFile(join(dist, 'index.html'), 'utf8');

const scriptSafe = (text) => text.replace(/<\/script/gi, '<\\/script');
const standaloneConfig = `globalThis.SHARDCALC_STANDALONE = ${scriptSafe(
  JSON.stringify({ workerSource: workerJs, wasmBase64 }),
)};`;
if (!CSP_META.test(html)) throw new Error('index.html must declare its policy in <meta http-equiv="Content-Security-Policy" content="...">');
if (/<script(?![^>]*\ssrc=)[^>]*>/.test(html)) throw new Error('index.html must have no inline script (its CSP refuses them)');
const style = `\n${css}\n`;
const configScript = standaloneConfig;
const pageScript = scriptSafe(pageJs);
html = html.replace(/<link[^>]*rel="stylesheet"[^>]*>/, () => `<style>${style}</style>`);
html = html.replace(/<script src="js\/early\.js"><\/script>\n?/, '');
html = html.replace(
  /<script[^>]*type="module"[^>]*src="[^"]*main\.js"[^>]*><\/script>/,
  () => `<script>${configScript}</script>\n<script type="module">${pageScript}</script>`,
);
if (!html.includes('SHARDCALC_STANDALONE')) throw new Error('index.html must load js/main.js with <script type="module" src="js/main.js">');
if (/<script[^>]*\ssrc=/.test(html)) throw new Error('the single-file build must not load a script file');
// Its policy: the inlined scripts and stylesheet by hash (works from file://, where 'self' means
// nothing useful); the worker is a blob: URL; the wasm bytes are inlined, nothing is fetched.
const standalonePolicy = [
  "default-src 'none'",
  `script-src ${sha256(configScript)} ${sha256(pageScript)} 'wasm-unsafe-eval'`,
  'worker-src blob:',
  "connect-src 'self'",
  `style-src ${sha256(style)}`,
  'img-src data:',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
html = html.replace(CSP_META, () => `<meta http-equiv="Content-Security-Policy" content="${standalonePolicy}">`);
await writeFile(join(dist, 'shardcalc-standalone.html'), html);

// The page's default plan exactly as its first request sends it (js/state.js: JSON of toScenario of the
// defaults), a string literal for the hosted worker, which evaluates it before the page asks (engine-worker.js).
async function defaultScenarioText() {
  const { defaultState, toScenario } = await import(join(src, 'js', 'state.js'));
  return JSON.stringify(JSON.stringify(toScenario(defaultState().entries)));
}

// The hosted page, bundled and minified: one request for the page's modules instead of a chain of
// about thirty (each import found only once its importer has loaded), one for the worker and the core
// engine's glue, and fewer bytes (page budget: docs/performance.md). The whole engine's glue stays a file of its
// own (dist/engine/shardcalc.mjs): the worker imports it on the first search, the page only where no
// worker starts. early.js stays a classic script (index.html loads it first).
// The page's script is one file plus a file for each module the page imports on demand (the field help, the
// comparison, the search panel, the Gantt and roofline charts, the kernel table, a choice's moves, size suffixes): fetched on first use, never
// before the first result. esbuild's own splitting put every module that main.js shares with such a file into a
// chunk of its own, all of them in the first download, which compresses worse than one file (2 KB more gzipped,
// measured): so main.js is built whole, re-exporting the modules the on-demand files share with it, and each
// on-demand file imports those from main.js (the same module instance: the page's own script). The single-file
// build keeps everything in one script.
const jsDir = join(dist, 'js');
const onDemand = new Set();
for (const file of await readdir(jsDir))
  for (const m of (await readFile(join(jsDir, file), 'utf8')).matchAll(/import\('\.\/([\w-]+\.js)'\)/g)) onDemand.add(m[1]);
const keepOnDemand = { name: 'on-demand', setup(b) {
  b.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (a) => (a.kind === 'dynamic-import' && onDemand.has(a.path.slice(2)) ? { path: a.path, external: true } : undefined));
} };
const pageBuild = (entryPoints, plugins, stdin) => build({
  ...(stdin ? { stdin } : { entryPoints }), bundle: true, format: 'esm', write: false, metafile: true, minify: true, platform: 'browser',
  external: ['node:*', '../engine/shardcalc.mjs'], plugins, logLevel: 'silent',
});
// Which page modules each on-demand file imports (read from a bundle of it alone), of those main.js holds too.
const mainInputs = new Set(Object.keys((await pageBuild([join(jsDir, 'main.js')], [keepOnDemand])).metafile.inputs).map((i) => resolve(i)));
const shared = new Set();
for (const file of onDemand) {
  const alone = await pageBuild([join(jsDir, file)], [keepOnDemand]);
  for (const input of Object.keys(alone.metafile.inputs)) if (mainInputs.has(resolve(input)) && resolve(input) !== join(jsDir, file)) shared.add(resolve(input));
}
// main.js, re-exporting the shared modules (their export names do not collide: esbuild fails the build if they do).
const mainOut = await pageBuild(null, [keepOnDemand], {
  contents: [`import './main.js';`, ...[...shared].sort().map((f) => `export * from './${f.slice(jsDir.length + 1)}';`)].join('\n'),
  resolveDir: jsDir, sourcefile: 'main-entry.js',
});
const fromMain = { name: 'from-main', setup(b) {
  b.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (a) => (shared.has(resolve(a.resolveDir, a.path)) ? { path: './main.js', external: true } : undefined));
} };
const pageFiles = { 'main.js': mainOut.outputFiles[0].text };
for (const file of onDemand) pageFiles[file] = (await pageBuild([join(jsDir, file)], [keepOnDemand, fromMain])).outputFiles[0].text;
const hostedJs = {
  ...pageFiles,
  // The search's code stays a file of its own (js/search-run.js, built with the page's on-demand files), fetched by the
  // worker's first search; the single-file worker above bundles it in.
  'engine-worker.js': await bundle(join(dist, 'js', 'engine-worker.js'), 'esm', {
    plugins: [withoutNodePrelude], external: ['../engine/shardcalc.mjs', './search-run.js'], define: { SHARDCALC_DEFAULT_SCENARIO: await defaultScenarioText() } }),
};
// early.js is inlined in the hosted page, allowed by its hash in the page's policy: the parser would
// otherwise stop at it for a request of its own before it finds the stylesheet and the page's script.
const earlyJs = (await transform(await readFile(join(dist, 'js', 'early.js'), 'utf8'), { minify: true, loader: 'js' })).code.trim();
const hostedHtml = (await readFile(join(dist, 'index.html'), 'utf8'))
  .replace(/<script src="js\/early\.js"><\/script>/, () => `<script>${scriptSafe(earlyJs)}</script>`)
  .replace(CSP_META, (meta) => meta.replace("script-src 'self'", `script-src 'self' ${sha256(scriptSafe(earlyJs))}`));
if (!hostedHtml.includes('<script type="module" src="js/main.js"></script>')) throw new Error('index.html must load js/main.js with <script type="module" src="js/main.js"></script>');
await writeFile(join(dist, 'index.html'), hostedHtml);
await rm(join(dist, 'js'), { recursive: true });
await mkdir(join(dist, 'js'));
for (const [name, code] of Object.entries(hostedJs)) await writeFile(join(dist, 'js', name), code);
await writeFile(join(dist, 'style.css'), (await transform(css, { minify: true, loader: 'css' })).code);
console.log(`built ${dist} and shardcalc-standalone.html (${(html.length / 1024).toFixed(0)} KiB)`);

// ---- Documentation pages ------------------------------------------------------------------------
// docs/*.md rendered to dist/docs/<name>.html (marked, GitHub-flavoured), each heading with the id
// GitHub gives it (github-slugger), so the form's help links (fields.js `doc`, e.g.
// 'memory.md#activations-saved-for-backward') and links copied from GitHub land on the same section.
// Links between the docs (`MISSING.md#x`) point to the rendered pages. The pages follow the page's
// policy: no script at all, one stylesheet file (web/src/docs/docs.css, copied with web/src), raw
// HTML in the Markdown shown as text. The calculator never loads them; only a followed link does.
// tests/web/docs-links.test.mjs checks that every `doc` anchor and every link between the docs resolves.
const DOC_PAGES = [
  ['index', 'Documentation'],
  ['page', 'Using the page'],
  ['cli', 'Using the CLI'],
  ['memory', 'Memory model'],
  ['time', 'Step-time model'],
  ['devices', 'Devices'],
  ['validation', 'Validation'],
  ['scenario', 'Scenario reference'],
  ['search', 'Plan search'],
  ['serving', 'Serving'],
  ['rl', 'RL post-training'],
  ['presets', 'Presets'],
  ['validation-sources', 'Validation sources'],
  ['performance', 'Performance'],
  ['testing', 'Tests and validation'],
];

async function renderDocs() {
  const { Marked } = await import('marked');
  const { default: Slugger } = await import('github-slugger');
  const out = join(dist, 'docs');
  await mkdir(out, { recursive: true });
  await copyFile(join(src, 'docs', 'docs.css'), join(out, 'docs.css'));
  const names = new Set(DOC_PAGES.map(([name]) => name));
  const escape = (text) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  const textOf = (html) => html.replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]);
  for (const [name, navLabel] of DOC_PAGES) {
    const slugger = new Slugger();
    const headings = [];
    const marked = new Marked({
      gfm: true,
      walkTokens(token) {
        // `other.md#x` -> `other.html#x` for the pages rendered here.
        const m = token.type === 'link' && /^([\w-]+)\.md(#.*)?$/.exec(token.href);
        if (m && names.has(m[1])) token.href = `${m[1]}.html${m[2] || ''}`;
      },
      renderer: {
        heading({ tokens, depth }) {
          const inner = this.parser.parseInline(tokens);
          const id = slugger.slug(textOf(inner));
          headings.push({ depth, id, inner });
          return `<h${depth} id="${id}">${inner}</h${depth}>\n`;
        },
        html({ text }) {
          return escape(text);
        },
      },
    });
    let body = marked.parse(await readFile(join(root, 'docs', `${name}.md`), 'utf8'));
    const title = headings[0] ? textOf(headings[0].inner) : name;
    const toc = headings.slice(1).filter((x) => x.depth <= 2);
    if (toc.length > 2) { // contents, after the introduction (before the first section)
      const list = toc.map((x) => `<li${x.depth === 1 ? ' class="part"' : ''}><a href="#${x.id}">${x.inner.replace(/<\/?a\b[^>]*>/g, '')}</a></li>`).join('\n');
      const at = body.indexOf('<h2');
      body = `${body.slice(0, at)}<nav class="doc-toc" aria-label="Contents"><ul>\n${list}\n</ul></nav>\n${body.slice(at)}`;
    }
    const nav = DOC_PAGES.map(([n, label]) => `<a href="${n}.html"${n === name ? ' aria-current="page"' : ''}>${label}</a>`).join(' ');
    const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escape(title)} · shardcalc docs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs.css">
</head>
<body>
<header class="docs-top"><a class="home" href="../index.html">shardcalc</a> <nav aria-label="Documentation">${nav}</nav></header>
<main class="doc">
${body}</main>
</body>
</html>
`;
    await writeFile(join(out, `${name}.html`), page);
  }
  console.log(`built ${out} (${DOC_PAGES.length} pages)`);
}
await renderDocs();
// ---- end of documentation pages -----------------------------------------------------------------
