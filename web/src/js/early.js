// Loaded by index.html before anything else (a file, not an inline script: the page's
// Content-Security-Policy allows no inline script). Starts the engine's worker before the page's
// modules load, since starting a worker thread is the longest step to the first result;
// js/engine-client.js adopts it. Not part of the single-file build.
(function () {
  var worker;
  try { worker = window.__shardcalcWorker = new Worker('js/engine-worker.js', { type: 'module' }); } catch (e) { return; }
  // Compile the engine (its core, without the plan search: wasm/CMakeLists.txt) while the worker
  // thread starts (V8 compiles on background threads), and hand the module to the worker as soon as
  // it is compiled, so that the engine starts while the page's own script still loads. A page opened without a
  // link (no fragment) will ask for its default plan first: the worker evaluates it while the page reads its presets.
  // A link that names a plan only the whole engine evaluates (a TPU, an LSTM, an adapter, torch.compile:
  // wasm/core_features.cpp) has the worker start the whole engine at once too, instead of after the core's first
  // answer (page budget: docs/performance.md).
  var whole = false;
  try { whole = /tpu|xla|lstm|lora|dora|inductor|reduce_overhead|max_autotune/i.test(decodeURIComponent(location.hash)); } catch (e) {}
  try {
    window.__shardcalcModule = WebAssembly.compileStreaming(fetch('engine/shardcalc-core.wasm'));
    window.__shardcalcModule.then(function (module) { worker.postMessage({ op: 'module', module: module, defaults: location.hash.length < 2, whole: whole }); }, function () {});
  } catch (e) {}
})();
