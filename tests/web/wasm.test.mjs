// The WebAssembly module against the native CLI: same engine sources, so the same report,
// for every model preset (and for errors). Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'build', 'engine', 'shardcalc');
const wasmDir = join(root, 'build-wasm', 'wasm');
const { default: createShardcalc } = await import(join(wasmDir, 'shardcalc.mjs'));
// Node's global fetch cannot read a file path: hand the bytes over (docs/toolchain.md, quirk 3: Node's global fetch).
const engine = await createShardcalc({ wasmBinary: await readFile(join(wasmDir, 'shardcalc.wasm')) });

function native(scenario) {
  const out = execFileSync(cli, ['estimate', '--format', 'json', '-'], { input: JSON.stringify(scenario) });
  return JSON.parse(out);
}

test('the wasm presets are the same files the CLI embeds', () => {
  const fromWasm = JSON.parse(engine.presets());
  const fromCli = JSON.parse(execFileSync(cli, ['presets', '--format', 'json']));
  assert.deepEqual(fromWasm, fromCli);
  assert.ok(fromWasm.models.length >= 20 && fromWasm.hardware.length >= 12);
});

test('for every model preset the wasm report is identical to the native CLI report', () => {
  const { models, hardware } = JSON.parse(engine.presets());
  models.forEach((model, i) => {
    const device = hardware[i % hardware.length];
    const scenario = {
      // A TPU runs XLA programs only (xla); GPUs take the others in turn.
      framework: device.kind === 'tpu' ? 'xla' : ['megatron', 'deepspeed', 'fsdp', 'pytorch'][i % 4],
      model: { preset: model.id },
      training: { seq_len: 512, micro_batch: 2, recompute: ['none', 'selective', 'full'][i % 3] },
      parallel: { dp: 2 },
      hardware: { preset: device.id },
    };
    const result = JSON.parse(engine.evaluate(JSON.stringify(scenario)));
    assert.equal(result.ok, true, `${model.id}: ${JSON.stringify(result.error)}`);
    assert.deepEqual(result.report, native(scenario), model.id);
  });
});

test('a pipeline plan with every parallel dimension matches too', () => {
  const scenario = {
    framework: 'megatron',
    model: { preset: 'llama-3.1-70b' },
    training: { seq_len: 8192, global_batch: 64, recompute: 'selective' },
    parallel: { dp: 2, tp: 8, pp: 4, vpp: 2, sp: true, cp: 2, distributed_optimizer: true },
  };
  const result = JSON.parse(engine.evaluate(JSON.stringify(scenario)));
  assert.equal(result.ok, true);
  assert.deepEqual(result.report, native(scenario));
  assert.equal(result.report.memory.stages.length, 4);
});

test('counts past 2^32 in wasm (32-bit size_t) are answered as natively', () => {
  // 2^30 microbatches on two stages: 2^32 schedule events, which a 32-bit size_t wrapped to 0 (issue 30: bad_alloc).
  for (const scenario of [
    { model: { preset: 'gpt2' }, parallel: { pp: 2 }, training: { global_batch: 1073741824 } },
    { model: { preset: 'gpt2' }, parallel: { pp: 4, vpp: 3 }, training: { global_batch: 4294967296 }, hardware: { preset: 'h100-sxm-80gb' } },
  ]) {
    const result = JSON.parse(engine.evaluate(JSON.stringify(scenario)));
    assert.equal(result.ok, true, JSON.stringify(result.error));
    assert.deepEqual(result.report, native(scenario));
  }
});

test('errors come back as values with the field path, exactly as the CLI prints them', () => {
  const scenario = { model: { preset: 'llama-2-7b' }, parallel: { tp: 3 } };
  const fromWasm = JSON.parse(engine.evaluate(JSON.stringify(scenario)));
  const run = spawnSync(cli, ['estimate', '-'], { input: JSON.stringify(scenario) });
  assert.equal(run.status, 2);
  assert.deepEqual(fromWasm, JSON.parse(run.stderr));
  assert.equal(fromWasm.error.path, '/parallel/tp');
});

test('garbage never aborts the module', () => {
  for (const text of ['', '{', 'null', '[]', '{"model":{"preset":"\u00ff"}}', '{"model":' + '['.repeat(5000)]) {
    const result = JSON.parse(engine.evaluate(text));
    assert.equal(result.ok, false, text.slice(0, 20));
    assert.equal(typeof result.error.message, 'string');
  }
  assert.equal(engine.version(), execFileSync(cli, ['--version']).toString().trim().split(' ')[1]);
});

test('numbers beyond double range and deep nesting are field errors, the same as the CLI', () => {
  // Once a bare "internal error" (1e400) and a RangeError escaping evaluate (5,000 levels).
  const deep = (n) => '{"model":' + '{"a":'.repeat(n) + '1' + '}'.repeat(n + 1);
  for (const text of ['{"model":{"preset":"gpt2","hidden":1e400}}', deep(5000), deep(100000)]) {
    const fromWasm = JSON.parse(engine.evaluate(text));
    const run = spawnSync(cli, ['estimate', '-'], { input: text });
    assert.equal(run.status, 2);
    assert.deepEqual(fromWasm, JSON.parse(run.stderr));
    assert.notEqual(fromWasm.error.path, '');
  }
  assert.equal(JSON.parse(engine.evaluate('{"model":{"preset":"gpt2","hidden":1e400}}')).error.path, '/model/hidden');
});

test('the plan search in wasm, stepped in slices, equals the native CLI search', () => {
  const scenario = {
    framework: 'megatron',
    model: { preset: 'llama-3.1-8b' },
    training: { seq_len: 4096, global_batch: 64 },
    hardware: { preset: 'a100-sxm-80gb' },
    search: { devices: { min: 8, max: 32 }, frameworks: ['megatron', 'deepspeed', 'fsdp'], top: 15 },
  };
  const session = new engine.SearchSession(JSON.stringify(scenario));
  let slices = 0;
  let last = 0;
  while (!session.done()) {
    session.step(200);
    assert.ok(session.progress() >= last);
    last = session.progress();
    slices += 1;
  }
  const fromWasm = JSON.parse(session.result());
  session.delete();
  const fromCli = JSON.parse(execFileSync(cli, ['search', '--format', 'json', '--threads', '1', '-'], { input: JSON.stringify(scenario) }));
  assert.ok(slices > 1);
  assert.equal(fromWasm.ok, true);
  assert.deepEqual(fromWasm.search, fromCli);
  assert.ok(fromCli.plans.length > 0);

  // In parts, as the page's helper workers run it: each part walked by a session of its own, the others' findings
  // (text, as they cross from worker to worker) joined into the first; the same answer as the CLI's two threads.
  const text = JSON.stringify(scenario);
  const parts = [0, 1].map((part) => {
    const s = new engine.SearchSession(text, part, 2);
    while (!s.done()) s.step(400);
    return s;
  });
  parts[0].join(parts[1].findings());
  const joined = JSON.parse(parts[0].result());
  for (const s of parts) s.delete();
  const twoThreads = JSON.parse(execFileSync(cli, ['search', '--format', 'json', '--threads', '2', '-'], { input: text }));
  assert.deepEqual(joined.search, twoThreads);
});

// The page loads the core module first (wasm/CMakeLists.txt: no plan search or config import, built for
// size, C functions the page's own loader calls): it must answer exactly as the whole engine does, errors included.
test('the core module answers as the whole engine (its presets without their prose), and has no search or import', async () => {
  const { default: createCore } = await import('../../web/src/js/core-engine.js');
  const core = await createCore({ wasmBinary: await readFile(join(wasmDir, 'shardcalc-core.wasm')) });
  // The same presets, without the prose and reference counts of the model and hardware files and the plans'
  // sources (engine/CMakeLists.txt), which the core leaves out (the page fetches the plans' sources on a choice).
  const prose = JSON.parse(engine.presets());
  for (const kind of ['models', 'hardware']) for (const p of prose[kind]) for (const k of ['sources', 'notes', 'source', 'reference']) delete p[k];
  for (const p of prose.plans) delete p.scenario.source;
  assert.deepEqual(JSON.parse(core.presets()), prose);
  assert.ok(JSON.parse(engine.presets()).hardware.every((p) => p.sources), 'the whole engine keeps every source');
  assert.equal(core.version(), engine.version());
  assert.equal(core.SearchSession, undefined);
  assert.equal(core.importConfig, undefined);
  const scenarios = [
    { model: { preset: 'llama-3.1-70b' }, parallel: { dp: 2, tp: 8, pp: 4, vpp: 2, sp: true, cp: 2 }, training: { seq_len: 8192, global_batch: 64 } },
    { framework: 'deepspeed', model: { preset: 'bert-large' }, parallel: { dp: 4, zero: 3 } },
    { model: { preset: 'llama-2-7b' }, parallel: { tp: 3 } },
    { model: { preset: 'gpt2', hidden: 1e400 } },
  ];
  for (const s of scenarios) assert.equal(core.evaluate(JSON.stringify(s)), engine.evaluate(JSON.stringify(s)), JSON.stringify(s));
  // Text that is not JSON, text with a NUL and non-ASCII text cross as the whole engine's embind strings do.
  for (const text of ['', '{', '{"model":' + '['.repeat(5000), '{"model":{"preset":"gpt2"}}\u0000', '{"modèle":{"préréglage":"λ"}}']) {
    assert.equal(core.evaluate(text), engine.evaluate(text), text);
  }
  const request = JSON.stringify({ scenario: scenarios[0], options: { '/parallel/tp': [1, 2, 3, 4, 8], '/parallel/zero': [0, 1, 2, 3] } });
  assert.equal(core.choices(request), engine.choices(request));
  // Answers larger than the module's first memory (it grows) and many calls (each frees what it took).
  const big = JSON.stringify({ model: { preset: 'deepseek-v3' }, parallel: { pp: 16, ep: 8, dp: 8 }, training: { global_batch: 512 } });
  const first = core.evaluate(big);
  for (let i = 0; i < 200; i += 1) assert.equal(core.evaluate(big), first);
  assert.equal(first, engine.evaluate(big));
  // LSTMs are left out of the core (wasm/core_features.cpp): it says so, and the whole engine evaluates them (the
  // page's worker asks it, engine-worker.js).
  const lstm = JSON.stringify({ framework: 'pytorch', model: { preset: 'deepflow-lstm-38b' }, training: { seq_len: 20, micro_batch: 512, dtype: 'fp32' }, hardware: { preset: 'deepflow-300w' } });
  const omitted = JSON.parse(core.evaluate(lstm));
  assert.equal(omitted.ok, false);
  assert.equal(omitted.whole_engine, true);
  const lstmChoices = JSON.stringify({ scenario: JSON.parse(lstm), options: { '/parallel/dp': [1, 2], '/parallel/tp': [1, 2] } });
  assert.equal(JSON.parse(core.choices(lstmChoices)).whole_engine, true);
  // The whole engine's choices for it: tp 1 only (an LSTM runs with dp and pp).
  assert.deepEqual(JSON.parse(engine.choices(lstmChoices)).options['/parallel/tp'].map((o) => o.valid), [true, false]);
  assert.equal(JSON.parse(engine.evaluate(lstm)).ok, true);
  assert.deepEqual(JSON.parse(engine.evaluate(lstm)).report, native(JSON.parse(lstm)));
  // So are TPUs (their device and XLA's program): the core says so for an evaluation and for the framework menu's
  // question, and the whole engine answers both.
  const tpu = { model: { preset: 'bert-base' }, training: { seq_len: 512, micro_batch: 64, dtype: 'fp32', attention: 'eager', dropout: 0.1 }, hardware: { preset: 'tpu-v3' } };
  assert.equal(JSON.parse(core.evaluate(JSON.stringify(tpu))).whole_engine, true);
  assert.deepEqual(JSON.parse(engine.evaluate(JSON.stringify(tpu))).report, native(tpu));
  // So are torch.compile's fused kernels (graph/compiled_kernels.cpp).
  const compiled = { framework: 'pytorch', model: { preset: 'gpt2' }, training: { seq_len: 1024, micro_batch: 4 }, implementation: { compile: 'inductor' } };
  assert.equal(JSON.parse(core.evaluate(JSON.stringify(compiled))).whole_engine, true);
  assert.deepEqual(JSON.parse(engine.evaluate(JSON.stringify(compiled))).report, native(compiled));
  // So is the "did you mean" of a misspelled preset id (io/preset_suggestions.cpp; the page's link reader names an
  // unknown preset itself, so only a caller of the engine meets it).
  const misspelled = JSON.stringify({ model: { preset: 'llama-2-7bb' } });
  assert.equal(JSON.parse(core.evaluate(misspelled)).whole_engine, true);
  assert.match(JSON.parse(engine.evaluate(misspelled)).error.message, /unknown model preset "llama-2-7bb"; did you mean .*"llama-2-7b"/);
  // So are the pipeline layouts Megatron is given explicitly (scenario/pipeline_layouts.cpp): every stage's layers, and
  // the embedding and loss counted as layers.
  for (const parallel of [{ pp: 4, stage_layers: [6, 10, 10, 6] }, { pp: 2, embedding_as_layer: true, loss_as_layer: true }]) {
    const layout = { model: { preset: 'llama-3.1-8b' }, training: { seq_len: 2048 }, parallel };
    assert.equal(JSON.parse(core.evaluate(JSON.stringify(layout))).whole_engine, true);
    assert.equal(JSON.parse(engine.evaluate(JSON.stringify(layout))).ok, true);
    assert.deepEqual(JSON.parse(engine.evaluate(JSON.stringify(layout))).report, native(layout));
  }
  const frameworks = JSON.stringify({ scenario: { ...tpu, framework: 'megatron' }, options: { '/framework': ['megatron', 'xla'] } });
  assert.equal(JSON.parse(core.choices(frameworks)).whole_engine, true);
  assert.deepEqual(JSON.parse(engine.choices(frameworks)).options['/framework'].map((o) => o.valid), [false, true]);
});

// The config.json importer has one copy, in the engine: the whole module (which the page's worker loads for
// an import; the core has none) answers exactly as `shardcalc import`, imports and refusals alike.
test('a Hugging Face config.json imports exactly as `shardcalc import` reads it', () => {
  const mistral = {
    architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336,
    num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000,
    max_position_embeddings: 32768, hidden_act: 'silu', sliding_window: 4096, some_new_knob: 3,
  };
  const texts = [
    JSON.stringify(mistral),
    JSON.stringify({ ...mistral, model_type: 'mixtral', num_local_experts: 8 }),
    JSON.stringify(mistral).replace('"num_key_value_heads":8', '"num_key_value_heads":1e400'),
    '{"model_type": ',
  ];
  for (const text of texts) {
    const run = spawnSync(cli, ['import', '-'], { input: text });
    const fromCli = JSON.parse(String(run.status === 0 ? run.stdout : run.stderr));
    assert.equal(run.status === 0, fromCli.ok, text);
    assert.deepEqual(JSON.parse(engine.importConfig(text)), fromCli, text);
  }
});

test('on generated scenarios, valid and not, the wasm engine answers exactly as the native CLI', () => {
  // A seeded draw over the fields people change most (every model and hardware preset, frameworks, parallel degrees,
  // batches up to 2^31, recompute, the fp8 and FP4 recipes): some are valid, the rest refused; both must agree with the
  // CLI exactly, report or errors.
  let seed = 20261127;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const { models, hardware } = JSON.parse(engine.presets());
  let valid = 0;
  const count = 120;
  for (let i = 0; i < count; i++) {
    const device = pick(hardware);
    const model = pick(models);
    const scenario = {
      framework: device.kind === 'tpu' ? 'xla' : pick(['megatron', 'deepspeed', 'fsdp', 'pytorch']),
      model: { preset: model.id },
      training: {
        seq_len: pick([128, 512, 2048, 4096]), micro_batch: pick([1, 2, 4]), recompute: pick(['none', 'selective', 'full']),
        global_batch: pick([8, 64, 1024, 2 ** 31]),
        ...(rand() < 0.2 ? { fp8: pick(['delayed', 'current', 'blockwise', 'mxfp8', 'nvfp4']) } : {}),
      },
      parallel: { dp: pick([1, 2, 4, 8]), tp: pick([1, 2, 4, 8]), pp: pick([1, 2, 4]), ...(rand() < 0.3 ? { sp: true } : {}) },
      hardware: { preset: device.id },
    };
    const text = JSON.stringify(scenario);
    const fromWasm = JSON.parse(engine.evaluate(text));
    const run = spawnSync(cli, ['estimate', '--format', 'json', '-'], { input: text });
    if (run.status === 0) {
      valid += 1;
      assert.equal(fromWasm.ok, true, text);
      assert.deepEqual(fromWasm.report, JSON.parse(run.stdout), text);
    } else {
      assert.equal(run.status, 2, text);
      assert.deepEqual(fromWasm, JSON.parse(run.stderr), text);
    }
  }
  assert.ok(valid >= count / 4, `${valid} of ${count} valid: the draw must exercise reports, not only errors`);
});

// Issue 30: the generator-based fuzzer's own inputs (tests/generated_scenarios.py --draw: fields drawn from the schema,
// ranges' ends included; served, their kernel tables, as RL actors, config.json imports) through both engines, answers or refusals equal.
test('on the inputs the schema-driven generator draws, the wasm engine answers every command exactly as the native CLI', () => {
  const generator = join(root, 'tests', 'generated_scenarios.py');
  const drawn = execFileSync('python3', [generator, cli, '--draw', '1200', '--seed', '20261128'], { maxBuffer: 1 << 26 })
    .toString().trim().split('\n').map((line) => JSON.parse(line));
  const commands = {
    estimate: { args: ['estimate', '--format', 'json'], wasm: (text) => engine.evaluate(text), key: 'report' },
    serve: { args: ['serve', '--format', 'json'], wasm: (text) => engine.serve(text, ''), key: 'serving' },
    kernels: { args: ['kernels', '--format', 'json'], wasm: (text) => engine.kernels(text, -1), key: 'kernels' },
    rl: { args: ['rl', '--format', 'json'], wasm: (text) => engine.rl(text, ''), key: 'rl' },
    import: { args: ['import'], wasm: (text) => engine.importConfig(text), key: null },
  };
  const answered = Object.fromEntries(Object.keys(commands).map((name) => [name, 0]));
  for (const { command, input } of drawn) {
    const c = commands[command];
    const fromWasm = JSON.parse(c.wasm(input));
    const run = spawnSync(cli, [...c.args, '-'], { input, maxBuffer: 1 << 28 });
    assert.ok(run.status === 0 || run.status === 2, `${command} exit ${run.status}: ${input}`);
    const fromCli = JSON.parse(String(run.status === 0 ? run.stdout : run.stderr));
    if (run.status === 0) {
      answered[command] += 1;
      assert.equal(fromWasm.ok, true, `${command}: ${input}`);
      assert.deepEqual(c.key ? fromWasm[c.key] : fromWasm, fromCli, `${command}: ${input}`);
    } else {
      assert.deepEqual(fromWasm, fromCli, `${command}: ${input}`);
    }
  }
  // The draw must reach answers, not only refusals, in every command.
  for (const [name, n] of Object.entries(answered)) assert.ok(n > 10, `${name}: only ${n} of the drawn inputs answered`);
});
