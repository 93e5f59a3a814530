// The page's only door to the engine: a Web Worker running the same WebAssembly module as the
// CLI's engine. The page never computes a number itself.
//
//   const engine = await createEngine();
//   engine.presets            -> {models: [...preset files], hardware: [...]}
//   engine.version            -> "0.1.0"
//   engine.thread             -> "worker" | "main" (where it runs; the page shows it in data-engine-thread)
//   await engine.evaluate(scenarioObject) -> {ok: true, report} | {ok: false, error: {path, message}}
//   await engine.choices(request)  -> {ok: true, options} | {ok: true, value} (engine/io/contract/choices.h: which values
//                               fields may take; the page's menus and steppers offer only those)
//   await engine.importConfig(configText) -> {ok: true, family, label, model, unknown, notes} | {ok: false, error, errors}
//                               (a Hugging Face config.json read by the engine, engine/io/import/hf_config.h)
//   await engine.kernels(scenario, stage = -1) -> {ok: true, kernels} | {ok: false, error} (the per-kernel table of
//                               pipeline rank `stage`, -1: the slowest; engine/report/kernel_table.h)
//   await engine.launch(scenario, tool = 'all') -> {ok: true, framework, generator, launch: [{tool, lines}]} | {ok: false, error}
//                               (how to launch the plan with its framework's tools; engine/io/api.h launch_scenario_text)
//   await engine.reconcile(scenario, logText) -> {ok: true, reconciliation} | {ok: false, error} (a run's log against
//                               the plan's estimate; engine/io/api.h reconcile_text)
//   await engine.rl(scenarioWithRl, verlLog = '') -> {ok: true, rl} | {ok: true, rl_reconciliation} | the error value
//                               (docs/rl.md; with verl's log, that log against the estimate)
//   await engine.serve(scenarioWithServing, vllmLog = '') -> {ok: true, serving} | {ok: true, serving_reconciliation} |
//                               {ok: false, error} (serving the model; with a vLLM log, that log against the estimate)
//   await engine.markdown(scenario, unit = 'GiB') -> {ok: true, format, verdict, text} | the error value (the report as
//                               Markdown, amounts in GiB or GB: the same document as `shardcalc estimate --format markdown`)
//   engine.search(scenarioWithSearch, onProgress) -> {result: Promise<{ok, search} | null>, cancel()}
//                               (null when cancelled; onProgress(fraction) after each slice)
//
// The standalone single-file build defines globalThis.SHARDCALC_STANDALONE = {workerSource, wasmBase64};
// the worker is then created from a Blob and receives the wasm bytes in its first message.
// The standalone worker is a classic script: Chromium refuses module workers from blob: URLs on
// file:// pages. Fallback: where no worker starts, the same engine module runs on the main thread.

function decodeBase64(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i += 1) bytes[i] = bin.charCodeAt(i);
  return bytes.buffer;
}

function spawnWorker() {
  const standalone = globalThis.SHARDCALC_STANDALONE;
  if (standalone) {
    const url = URL.createObjectURL(new Blob([standalone.workerSource], { type: 'text/javascript' }));
    return { worker: new Worker(url), wasm: decodeBase64(standalone.wasmBase64) };  // a classic script (web/build.mjs)
  }
  const early = globalThis.__shardcalcWorker;  // started by index.html's first script
  const compiled = globalThis.__shardcalcModule;  // and the module it compiles meanwhile
  globalThis.__shardcalcWorker = globalThis.__shardcalcModule = undefined;
  return {
    worker: early || new Worker(new URL('./engine-worker.js', import.meta.url), { type: 'module' }),
    wasm: null,
    compiled: early && compiled ? compiled.catch(() => null) : Promise.resolve(null),
  };
}

async function mainThreadEngine() {
  const standalone = globalThis.SHARDCALC_STANDALONE;
  const { default: createShardcalc } = await import('../engine/shardcalc.mjs');
  const module = await createShardcalc(standalone ? { wasmBinary: decodeBase64(standalone.wasmBase64) } : {});
  return {
    thread: 'main',
    version: module.version(),
    presets: JSON.parse(module.presets()),
    async evaluate(scenario) {
      return JSON.parse(module.evaluate(JSON.stringify(scenario)));
    },
    async choices(request) {
      return JSON.parse(module.choices(JSON.stringify(request)));
    },
    async importConfig(text) {
      return JSON.parse(module.importConfig(text));
    },
    async kernels(scenario, stage = -1) {
      return JSON.parse(module.kernels(JSON.stringify(scenario), stage));
    },
    async launch(scenario, tool = 'all') {
      return JSON.parse(module.launch(JSON.stringify(scenario), tool));
    },
    async reconcile(scenario, log) {
      return JSON.parse(module.reconcile(JSON.stringify(scenario), log));
    },
    async serve(scenario, log = '') {
      return JSON.parse(module.serve(JSON.stringify(scenario), log));
    },
    async rl(scenario, log = '') {
      return JSON.parse(module.rl(JSON.stringify(scenario), log));
    },
    async markdown(scenario, unit = 'GiB') {
      return JSON.parse(module.markdown(JSON.stringify(scenario), unit));
    },
    search(scenario, onProgress) {
      let stop = false;
      const text = JSON.stringify(scenario);
      const result = import('./search-run.js')
        .then(({ runSearch }) => runSearch(module, text, onProgress, () => stop))
        .then((t) => t && JSON.parse(t));
      return { result, cancel: () => { stop = true; } };
    },
  };
}

export async function createEngine() {
  try {
    return await workerEngine();
  } catch (error) {
    console.info(`shardcalc: the engine runs on the main thread (${error.message})`);
    return mainThreadEngine();
  }
}

async function workerEngine() {
  const { worker, wasm, compiled } = spawnWorker();
  let next = 1;
  const pending = new Map();
  worker.onmessage = ({ data }) => {
    const waiter = pending.get(data.id);
    if (!waiter) return;
    if (data.progress !== undefined) {
      waiter.onProgress?.(data.progress);
      return;
    }
    pending.delete(data.id);
    if (data.error !== undefined) waiter.reject(new Error(data.error));
    else waiter.resolve(data.result);
  };
  worker.onerror = (event) => {
    const error = new Error(`engine worker failed: ${event.message || 'unknown error'}`);
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  const call = (op, extra = {}, transfer = []) =>
    new Promise((resolve, reject) => {
      const id = next;
      next += 1;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, op, ...extra }, transfer);
    });

  // The first answer carries the presets too: one round trip less before the page can read its link.
  let started;
  try {
    started = await call('init', { wasm, module: await compiled }, wasm ? [wasm] : []);
  } catch (error) {
    worker.terminate();
    throw error;
  }
  const { version } = started;
  const presets = JSON.parse(started.presets);
  return {
    thread: 'worker',
    version,
    presets,
    async evaluate(scenario) {
      return JSON.parse(await call('evaluate', { text: JSON.stringify(scenario) }));
    },
    async choices(request) {
      return JSON.parse(await call('choices', { text: JSON.stringify(request) }));
    },
    async importConfig(text) {
      return JSON.parse(await call('import', { text }));
    },
    async kernels(scenario, stage = -1) {
      return JSON.parse(await call('kernels', { text: JSON.stringify(scenario), stage }));
    },
    async launch(scenario, tool = 'all') {
      return JSON.parse(await call('launch', { text: JSON.stringify(scenario), tool }));
    },
    async reconcile(scenario, log) {
      return JSON.parse(await call('reconcile', { text: JSON.stringify(scenario), log }));
    },
    async serve(scenario, log = '') {
      return JSON.parse(await call('serve', { text: JSON.stringify(scenario), log }));
    },
    async rl(scenario, log = '') {
      return JSON.parse(await call('rl', { text: JSON.stringify(scenario), log }));
    },
    async markdown(scenario, unit = 'GiB') {
      return JSON.parse(await call('markdown', { text: JSON.stringify(scenario), unit }));
    },
    search(scenario, onProgress) {
      const id = next;
      const result = call('search', { text: JSON.stringify(scenario) }).then((t) => t && JSON.parse(t));
      pending.get(id).onProgress = onProgress;
      return { result, cancel: () => worker.postMessage({ op: 'cancel', target: id }) };
    },
  };
}
