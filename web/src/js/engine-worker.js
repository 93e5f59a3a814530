// Runs the WebAssembly engine off the main thread. Messages: {id, op: 'init'|'evaluate'|'choices'|'import'|'kernels'|'launch'|'reconcile'|'serve'|'rl'|'markdown'|'search'|'cancel', ...};
// a search also posts {id, progress} after each turn of slices (search-run.js) and answers null when cancelled ({op: 'cancel', target: id}).
// As a helper of another worker (search-run.js readyHelpers): {op: 'warm'} loads the whole engine and answers
// {op: 'warm', ready}, {id, op: 'search-part', text, part, parts} walks one part of a search and answers its findings.
// 'init' answers {version, presets} (the presets document as text). index.html's early.js may post
// {op: 'module', module, defaults, whole} before it (no answer): the engine then starts without waiting for the page's
// modules, and `defaults` (the page opened without a link) has it evaluate the default plan after 'init'.
// The standalone build posts {op: 'init', wasm: ArrayBuffer} first (the whole engine's bytes); the hosted
// page posts the module index.html compiled, or nothing and the worker fetches the file.
// The hosted page starts with the core engine (no plan search, no config.json import, no glue: a smaller
// download before the first result, wasm/CMakeLists.txt, core-engine.js) and loads the whole engine on
// the first search, import, kernel table, launch lines or Markdown. The single-file build starts the whole engine from the bytes it is given
// (web/build.mjs bundles its glue into this worker), so it does both with the module it started.
import createCore from './core-engine.js';

// The plan search's code (search-run.js), fetched by the first search: the page's first answer needs none of it.
const searching = () => import('./search-run.js');
let isHelper = false; // this worker runs parts of another worker's searches (search-run.js helpers)

let engine = null;
let starting = null; // the engine's start: begun by early.js's module or by 'init', whichever comes first
// The page's default plan as the text its first 'evaluate' sends when it opens without a link (web/build.mjs
// defines it from js/state.js; undefined in the single-file build). early.js says whether the page has a link.
const DEFAULT_SCENARIO = typeof SHARDCALC_DEFAULT_SCENARIO === 'string' ? SHARDCALC_DEFAULT_SCENARIO : null;
let opensOnDefaults = false;
let opening = null; // {text, answer}: the default plan, evaluated while the page reads its presets
let wholeEngine = null; // a promise of the whole engine, from the first search or import on
let fromBytes = false; // the single-file build: the whole engine started from the bytes the page handed over
const cancelledSearches = new Set();

const loadWholeEngine = () => import('../engine/shardcalc.mjs').then(({ default: createWhole }) => createWhole);

// With the bytes given (the single-file build), locateFile keeps the whole engine's glue from resolving
// "shardcalc.wasm" against import.meta.url, which a blob: worker of a file:// page cannot ("Invalid URL").
// Otherwise the core starts from the module the page compiled, or from dist/engine/ (where the hosted
// page keeps it, not next to this file).
async function start(wasmBinary, module) {
  fromBytes = Boolean(wasmBinary);
  engine = wasmBinary
    ? await (await loadWholeEngine())({ wasmBinary, locateFile: (name) => name })
    : await createCore(module ? { module } : { url: new URL('../engine/shardcalc-core.wasm', import.meta.url) });
  // No warm-up evaluation: measured against one (12 loads each, twice), the first result came no sooner,
  // since both threads compete for this machine's two cores while the page loads.
  return { version: engine.version(), presets: engine.presets() };
}

// The module that searches and imports: the one running, where it can; otherwise the whole engine,
// loaded once (its glue finds its wasm next to itself). A failed load is tried again the next time.
function whole() {
  return engine?.SearchSession ? engine : startWhole();
}

function startWhole() {
  wholeEngine ??= loadWholeEngine()
    .then((createWhole) => createWhole())
    .catch((error) => {
      wholeEngine = null;
      throw error;
    });
  return wholeEngine;
}

// The core leaves some model families out (wasm/core_features.cpp: LSTMs) and answers them with {"ok": false,
// "whole_engine": true}: the whole engine answers instead.
async function orWhole(answer, ask) {
  return answer.includes('"whole_engine":true') ? ask(await whole()) : answer;
}

// The default plan's answer when `text` is that plan (once: the engine answers every later request itself).
function openingAnswer(text) {
  const answer = opening?.text === text ? opening.answer : null;
  opening = null;
  return answer;
}

self.onmessage = async (event) => {
  const { id, op, text, wasm, module } = event.data;
  try {
    let result;
    if (op === 'cancel') {
      cancelledSearches.add(event.data.target);
      return;
    }
    if (op === 'warm') { // a helper: the whole engine, loaded before its first part is asked
      isHelper = true;
      let ready = true;
      await startWhole().catch(() => { ready = false; });
      self.postMessage({ op: 'warm', ready });
      return;
    }
    if (op === 'module') {
      opensOnDefaults = event.data.defaults === true;
      starting ??= start(null, module);
      starting.catch(() => {}); // a failure is answered to 'init'
      if (event.data.whole === true) startWhole().catch(() => {}); // the link's plan needs it: fetched meanwhile
      return;
    }
    if (op === 'init') {
      self.postMessage({ id, result: await (starting ??= start(wasm, module)) });
      // The page now parses the presets and reads its link (10 to 20 ms of its thread); meanwhile this thread
      // evaluates the default plan, the first answer it will ask for when it opened without a link.
      try {
        if (opensOnDefaults && DEFAULT_SCENARIO) opening = { text: DEFAULT_SCENARIO, answer: engine.evaluate(DEFAULT_SCENARIO) };
      } catch {
        opening = null; // the page's own request will meet the same failure and answer it
      }
      return;
    }
    let prepared = null;
    if (op === 'evaluate') {
      prepared = openingAnswer(text);
      result = await orWhole(prepared ?? engine.evaluate(text), (e) => e.evaluate(text));
    } else if (op === 'search') {
      const [module, run] = await Promise.all([whole(), searching()]);
      const helpers = isHelper || fromBytes ? [] : run.readyHelpers(whole);
      result = await run.runSearch(module, text, (progress) => self.postMessage({ id, progress }), () => cancelledSearches.has(id), helpers);
      cancelledSearches.delete(id);
    } else if (op === 'search-part') { // a helper's part of another worker's search
      const [module, run] = await Promise.all([whole(), searching()]);
      const { part, parts } = event.data;
      result = await run.runPart(module, text, part, parts, (progress) => self.postMessage({ id, progress }), () => cancelledSearches.has(id));
      cancelledSearches.delete(id);
    }
    else if (op === 'choices') result = await orWhole(engine.choices(text), (e) => e.choices(text));
    else if (op === 'import') result = (await whole()).importConfig(text);
    else if (op === 'kernels') result = (await whole()).kernels(text, event.data.stage ?? -1);
    else if (op === 'launch') result = (await whole()).launch(text, event.data.tool ?? 'all');
    else if (op === 'reconcile') result = (await whole()).reconcile(text, event.data.log ?? '');
    else if (op === 'serve') result = (await whole()).serve(text, event.data.log ?? '');
    else if (op === 'rl') result = (await whole()).rl(text, event.data.log ?? '');
    else if (op === 'markdown') result = (await whole()).markdown(text, event.data.unit ?? 'GiB');
    else throw new Error(`unknown op ${op}`);
    self.postMessage(prepared ? { id, result, prepared: true } : { id, result }); // `prepared`: for tests and traces
  } catch (error) {
    self.postMessage({ id, error: String(error && error.message ? error.message : error) });
  }
};
