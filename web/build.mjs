// Builds the static site into web/dist from web/src and the wasm build (build-wasm/wasm):
//   dist/                      the hosted page (plain ES modules, engine in dist/engine/)
//   dist/shardcalc-standalone.html   one self-contained file (JS and wasm inlined) that works from file://
import { build } from 'esbuild';
import { cp, mkdir, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = dirname(fileURLToPath(import.meta.url));
const root = join(web, '..');
const src = join(web, 'src');
const dist = join(web, 'dist');
const wasmDir = join(root, 'build-wasm', 'wasm');

await rm(dist, { recursive: true, force: true });
await mkdir(join(dist, 'engine'), { recursive: true });
await cp(src, dist, { recursive: true });
await copyFile(join(wasmDir, 'shardcalc.mjs'), join(dist, 'engine', 'shardcalc.mjs'));
await copyFile(join(wasmDir, 'shardcalc.wasm'), join(dist, 'engine', 'shardcalc.wasm'));

// Standalone: bundle the page and the worker separately (the worker becomes a Blob), inline the
// stylesheet, and pass the wasm bytes as base64 so nothing is fetched.
async function bundle(entry) {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    write: false,
    minify: true,
    platform: 'browser',
    external: ['node:*'],
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}
const pageJs = await bundle(join(dist, 'js', 'main.js'));
const workerJs = await bundle(join(dist, 'js', 'engine-worker.js'));
const wasmBase64 = (await readFile(join(dist, 'engine', 'shardcalc.wasm'))).toString('base64');
const css = await readFile(join(dist, 'style.css'), 'utf8');
let html = await readFile(join(dist, 'index.html'), 'utf8');

const scriptSafe = (text) => text.replace(/<\/script/gi, '<\\/script');
const standaloneConfig = `globalThis.SHARDCALC_STANDALONE = ${scriptSafe(
  JSON.stringify({ workerSource: workerJs, wasmBase64 }),
)};`;
html = html.replace(/<link[^>]*rel="stylesheet"[^>]*>/, () => `<style>\n${css}\n</style>`);
html = html.replace(/<script id="early-worker">[\s\S]*?<\/script>/, '');
html = html.replace(
  /<script[^>]*type="module"[^>]*src="[^"]*main\.js"[^>]*><\/script>/,
  () => `<script>${standaloneConfig}</script>\n<script type="module">${scriptSafe(pageJs)}</script>`,
);
if (!html.includes('SHARDCALC_STANDALONE')) throw new Error('index.html must load js/main.js with <script type="module" src="js/main.js">');
await writeFile(join(dist, 'shardcalc-standalone.html'), html);
console.log(`built ${dist} and shardcalc-standalone.html (${(html.length / 1024).toFixed(0)} KiB)`);
