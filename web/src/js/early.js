// Loaded by index.html before anything else (a file, not an inline script: the page's
// Content-Security-Policy allows no inline script). Starts the engine's worker before the page's
// modules load, since starting a worker thread is the longest step to the first result;
// js/engine-client.js adopts it. Not part of the single-file build.
try { window.__shardcalcWorker = new Worker('js/engine-worker.js', { type: 'module' }); } catch (e) {}
// Compile the engine (its core: wasm/CMakeLists.txt) while the worker thread starts (V8 compiles on background threads); the
// compiled module is handed to the worker.
try { window.__shardcalcModule = WebAssembly.compileStreaming(fetch('engine/shardcalc-core.wasm')); window.__shardcalcModule.catch(function () {}); } catch (e) {}
