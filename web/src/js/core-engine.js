// The core engine (wasm/core.cpp): evaluate, presets, choices and version, plain C functions of a
// standalone WebAssembly module, instantiated here without Emscripten's glue or embind, which would
// be the larger part of the worker's script (page budget: docs/performance.md). The same interface as the
// whole engine's embind module for those four: strings in, strings out.
//
//   const core = await createCore({ module })        a WebAssembly.Module compiled by the page (early.js)
//   const core = await createCore({ wasmBinary })    the bytes (Node's tests)
//   const core = await createCore({ url })           fetched and compiled while it downloads
//   core.evaluate(text), core.choices(text), core.presets(), core.version()
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// The module's only imports: memory growth needs no view refreshed here (every read makes its view
// afresh), and exit, which the engine never calls on purpose, becomes an error the worker answers.
const imports = {
  env: { emscripten_notify_memory_growth() {} },
  wasi_snapshot_preview1: {
    proc_exit(code) {
      throw new Error(`the engine stopped (exit code ${code})`);
    },
  },
};

async function instantiate({ module, wasmBinary, url }) {
  if (module) return WebAssembly.instantiate(module, imports);
  const { instance } = wasmBinary
    ? await WebAssembly.instantiate(wasmBinary, imports)
    : await WebAssembly.instantiateStreaming(fetch(url), imports);
  return instance;
}

export default async function createCore(source) {
  const core = (await instantiate(source)).exports;
  core._initialize(); // the static constructors (a reactor module: -sSTANDALONE_WASM --no-entry)
  const bytes = () => new Uint8Array(core.memory.buffer); // afresh: memory.grow detaches the old buffer
  // A NUL-terminated string the engine allocated, read and freed (or kept, for the static version).
  const read = (pointer, free = true) => {
    if (!pointer) throw new Error('the engine is out of memory');
    const memory = bytes();
    const end = memory.indexOf(0, pointer);
    const text = decoder.decode(memory.subarray(pointer, end));
    if (free) core.sc_free(pointer);
    return text;
  };
  // Text in: UTF-8 copied into memory the engine allocated, passed as pointer and length.
  const call = (entry, text) => {
    const utf8 = encoder.encode(text);
    const pointer = core.sc_alloc(Math.max(utf8.length, 1));
    if (!pointer) throw new Error('the engine is out of memory');
    bytes().set(utf8, pointer);
    try {
      return read(entry(pointer, utf8.length));
    } finally {
      core.sc_free(pointer);
    }
  };
  return {
    evaluate: (text) => call(core.sc_evaluate, text),
    choices: (text) => call(core.sc_choices, text),
    presets: () => read(core.sc_presets()),
    version: () => read(core.sc_version(), false),
  };
}
