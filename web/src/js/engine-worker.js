// Runs the WebAssembly engine off the main thread. Messages: {id, op: 'init'|'presets'|'evaluate'|'choices'|'import'|'search'|'cancel', ...};
// a search also posts {id, progress} after each slice and answers null when cancelled ({op: 'cancel', target: id}).
// 'init' answers {version, presets} (the presets document as text). index.html's early.js may post
// {op: 'module', module} before it (no answer): the engine then starts without waiting for the page's modules.
// The standalone build posts {op: 'init', wasm: ArrayBuffer} first; the hosted page posts the module index.html compiled, or nothing and the glue fetches the file.
// The hosted page starts with the core engine (no plan search, no config.json import: a smaller
// download before the first result, wasm/CMakeLists.txt) and loads the whole engine on the first
// search or import. The single-file build bundles the whole engine under both names (web/build.mjs),
// so it does both with the module it started.
import createShardcalc from '../engine/shardcalc-core.mjs';
import { runSearch } from './search-run.js';

let engine = null;
let starting = null; // the engine's start: begun by early.js's module or by 'init', whichever comes first
let wholeEngine = null; // a promise of the whole engine, from the first search or import on
const cancelledSearches = new Set();

// A module compiled by the page is instantiated directly (Emscripten's instantiateWasm hook).
// With the bytes given, locateFile keeps the glue from resolving "shardcalc.wasm" against
// import.meta.url, which a blob: worker of a file:// page cannot ("Invalid URL").
// Without either, the glue fetches its wasm, from dist/engine/ (where the hosted page keeps it)
// rather than next to this file (the glue is bundled into it).
function options(wasmBinary, module) {
  if (wasmBinary) return { wasmBinary, locateFile: (name) => name };
  if (!module) return { locateFile: (name) => new URL(`../engine/${name}`, import.meta.url).href };
  return {
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module));
      return {};
    },
  };
}

async function start(wasmBinary, module) {
  engine = await createShardcalc(options(wasmBinary, module));
  const presets = engine.presets();
  setTimeout(() => warmUp(JSON.parse(presets)));
  return { version: engine.version(), presets };
}

// V8 compiles each WebAssembly function on its first call, which makes the first evaluation several
// times slower than the next (about 30 ms more in Chromium here). One evaluation of a preset pair,
// made while the page reads its link and builds its form, pays that before the page asks: the
// smallest decoder (most plans are decoders; the page's request waits for this one to finish).
// Its answer is dropped.
function warmUp({ models, hardware }) {
  const decoders = models.filter((m) => m.model?.arch !== 'encoder');
  const model = decoders.reduce((a, b) => ((b.model?.layers ?? Infinity) < (a.model?.layers ?? Infinity) ? b : a), decoders[0]);
  if (model && hardware.length) engine.evaluate(JSON.stringify({ model: { preset: model.id }, hardware: { preset: hardware[0].id } }));
}

// The module that searches and imports: the one running, where it can; otherwise the whole engine,
// loaded once (its glue finds its wasm next to itself). A failed load is tried again the next time.
function whole() {
  if (engine.SearchSession) return engine;
  wholeEngine ??= import('../engine/shardcalc.mjs')
    .then(({ default: createWhole }) => createWhole())
    .catch((error) => {
      wholeEngine = null;
      throw error;
    });
  return wholeEngine;
}

self.onmessage = async (event) => {
  const { id, op, text, wasm, module } = event.data;
  try {
    let result;
    if (op === 'cancel') {
      cancelledSearches.add(event.data.target);
      return;
    }
    if (op === 'module') {
      starting ??= start(null, module);
      starting.catch(() => {}); // a failure is answered to 'init'
      return;
    }
    if (op === 'init') result = await (starting ??= start(wasm, module));
    else if (op === 'evaluate') result = engine.evaluate(text);
    else if (op === 'search') {
      result = await runSearch(await whole(), text, (progress) => self.postMessage({ id, progress }), () => cancelledSearches.has(id));
      cancelledSearches.delete(id);
    }
    else if (op === 'presets') result = engine.presets();
    else if (op === 'choices') result = engine.choices(text);
    else if (op === 'import') result = (await whole()).importConfig(text);
    else throw new Error(`unknown op ${op}`);
    self.postMessage({ id, result });
  } catch (error) {
    self.postMessage({ id, error: String(error && error.message ? error.message : error) });
  }
};
