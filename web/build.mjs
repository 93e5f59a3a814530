// Builds the static site into web/dist from web/src and the wasm build (build-wasm/wasm):
//   dist/                      the hosted page (plain ES modules, engine in dist/engine/)
//   dist/shardcalc-standalone.html   one self-contained file (JS and wasm inlined) that works from file://
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
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
await writeFile(join(dist, 'engine', 'shardcalc.mjs'), withoutEval(await readFile(join(wasmDir, 'shardcalc.mjs'), 'utf8')));
await copyFile(join(wasmDir, 'shardcalc.wasm'), join(dist, 'engine', 'shardcalc.wasm'));

// The page's Content-Security-Policy allows no JavaScript eval. Emscripten 3.1.6's embind glue
// builds two kinds of wrapper with `new Function` (its default -sDYNAMIC_EXECUTION=1); they are
// replaced by the code Emscripten itself emits with -sDYNAMIC_EXECUTION=0
// (src/embind/embind.js: createNamedFunction, craftInvokerFunction), which does the same calls
// without generating code. Glue built with that flag already has no `new Function` and is left
// as it is; any other eval left in the glue fails the build.
function withoutEval(glue) {
  // Replaces the function that begins with `start` up to the next top-level function of the minified glue
  // (`end`: its name, or null for whichever comes next: class bindings change the order).
  const swap = (text, start, end, code) => {
    const i = text.indexOf(start);
    const next = /\}function [\w$]+\(/g;
    next.lastIndex = i + start.length;
    const j = end ? text.indexOf(end, i) : i < 0 ? -1 : (next.exec(text)?.index ?? -2) + 1;
    if (i < 0 || j < 0) throw new Error(`web/build.mjs: the engine glue has no "${start}…${end}" to replace (another Emscripten version?)`);
    return text.slice(0, i) + code + text.slice(j);
  };
  let out = glue;
  if (out.includes('new Function(')) {
    out = swap(out, 'function createNamedFunction(name,body){', 'function extendError(',
      'function createNamedFunction(name,body){name=makeLegalFunctionName(name);var f=function(){"use strict";return body.apply(this,arguments)};' +
      'Object.defineProperty(f,"name",{value:name});return f}');
    out = swap(out, 'function craftInvokerFunction(humanName,argTypes,classType,cppInvokerFunc,cppTargetFunc){', null,
      `function craftInvokerFunction(humanName,argTypes,classType,cppInvokerFunc,cppTargetFunc){
  var argCount=argTypes.length;
  if(argCount<2){throwBindingError("argTypes array size mismatch! Must at least get return value and 'this' types!")}
  var isClassMethodFunc=argTypes[1]!==null&&classType!==null;
  var needsDestructorStack=false;
  for(var i=1;i<argTypes.length;++i){if(argTypes[i]!==null&&argTypes[i].destructorFunction===undefined){needsDestructorStack=true;break}}
  var returns=argTypes[0].name!=="void";
  var expectedArgCount=argCount-2;
  return function(){
    if(arguments.length!==expectedArgCount){throwBindingError("function "+humanName+" called with "+arguments.length+" arguments, expected "+expectedArgCount+" args!")}
    var destructors=needsDestructorStack?[]:null;
    var thisWired;
    var argsWired=new Array(expectedArgCount);
    var invokerArgs=[cppTargetFunc];
    if(isClassMethodFunc){thisWired=argTypes[1].toWireType(destructors,this);invokerArgs.push(thisWired)}
    for(var i=0;i<expectedArgCount;++i){argsWired[i]=argTypes[i+2].toWireType(destructors,arguments[i]);invokerArgs.push(argsWired[i])}
    var rv=cppInvokerFunc.apply(null,invokerArgs);
    if(needsDestructorStack){runDestructors(destructors)}
    else{for(var i=isClassMethodFunc?1:2;i<argTypes.length;++i){if(argTypes[i].destructorFunction!==null){argTypes[i].destructorFunction(i===1?thisWired:argsWired[i-2])}}}
    if(returns){return argTypes[0].fromWireType(rv)}
  }
}
`);
  }
  const left = /new Function\(|new_\(Function|\beval\(/.exec(out);
  if (left) throw new Error(`web/build.mjs: the engine glue still generates code ("${left[0]}"), which the page's CSP refuses`);
  return out;
}

// The Content-Security-Policy of a built page: its <meta http-equiv> element.
const CSP_META = /<meta http-equiv="Content-Security-Policy" content="[^"]*">/;
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

// Standalone: bundle the page and the worker separately (the worker becomes a Blob), inline the
// stylesheet, and pass the wasm bytes as base64 so nothing is fetched.
// For the classic-script worker: the glue without its Node-only prelude (wasm/node_esm_prelude.js, whose
// top-level await only a module can hold); a browser worker skips that block anyway.
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

async function bundle(entry, format = 'esm') {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    format,
    plugins: format === 'iife' ? [withoutNodePrelude] : [],
    write: false,
    minify: true,
    platform: 'browser',
    external: ['node:*'],
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
console.log(`built ${dist} and shardcalc-standalone.html (${(html.length / 1024).toFixed(0)} KiB)`);
