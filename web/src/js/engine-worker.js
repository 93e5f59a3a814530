// Runs the WebAssembly engine off the main thread. Messages: {id, op: 'init'|'presets'|'evaluate'|'search'|'cancel', ...};
// a search also posts {id, progress} after each slice and answers null when cancelled ({op: 'cancel', target: id}).
// The standalone build posts {op: 'init', wasm: ArrayBuffer} first; the hosted page posts the module index.html compiled, or nothing and the glue fetches the file.
import createShardcalc from '../engine/shardcalc.mjs';
import { runSearch } from './search-run.js';

let engine = null;
const cancelledSearches = new Set();

// A module compiled by the page is instantiated directly (Emscripten's instantiateWasm hook).
// With the bytes given, locateFile keeps the glue from resolving "shardcalc.wasm" against
// import.meta.url, which a blob: worker of a file:// page cannot ("Invalid URL").
function options(wasmBinary, module) {
  if (wasmBinary) return { wasmBinary, locateFile: (name) => name };
  if (!module) return {};
  return {
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module));
      return {};
    },
  };
}

async function start(wasmBinary, module) {
  engine = await createShardcalc(options(wasmBinary, module));
  return engine.version();
}

self.onmessage = async (event) => {
  const { id, op, text, wasm, module } = event.data;
  try {
    let result;
    if (op === 'cancel') {
      cancelledSearches.add(event.data.target);
      return;
    }
    if (op === 'init') result = await start(wasm, module);
    else if (op === 'evaluate') result = engine.evaluate(text);
    else if (op === 'search') {
      result = await runSearch(engine, text, (progress) => self.postMessage({ id, progress }), () => cancelledSearches.has(id));
      cancelledSearches.delete(id);
    }
    else if (op === 'presets') result = engine.presets();
    else throw new Error(`unknown op ${op}`);
    self.postMessage({ id, result });
  } catch (error) {
    self.postMessage({ id, error: String(error && error.message ? error.message : error) });
  }
};
