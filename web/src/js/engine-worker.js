// Runs the WebAssembly engine off the main thread. Messages: {id, op: 'evaluate'|'presets'|'version', text}.
// The standalone build posts {op: 'init', wasm: ArrayBuffer} first; the hosted page lets the glue fetch the file.
import createShardcalc from '../engine/shardcalc.mjs';

let engine = null;

async function start(wasmBinary) {
  engine = await createShardcalc(wasmBinary ? { wasmBinary } : {});
  return engine.version();
}

self.onmessage = async (event) => {
  const { id, op, text, wasm } = event.data;
  try {
    let result;
    if (op === 'init') result = await start(wasm);
    else if (op === 'evaluate') result = engine.evaluate(text);
    else if (op === 'presets') result = engine.presets();
    else throw new Error(`unknown op ${op}`);
    self.postMessage({ id, result });
  } catch (error) {
    self.postMessage({ id, error: String(error && error.message ? error.message : error) });
  }
};
