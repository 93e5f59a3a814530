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
// Node's global fetch cannot read a file path: hand the bytes over (../shared/toolchain.md, quirk 3).
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
    const scenario = {
      framework: ['megatron', 'deepspeed', 'fsdp', 'pytorch'][i % 4],
      model: { preset: model.id },
      training: { seq_len: 512, micro_batch: 2, recompute: ['none', 'selective', 'full'][i % 3] },
      parallel: { dp: 2 },
      hardware: { preset: hardware[i % hardware.length].id },
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
  const fromCli = JSON.parse(execFileSync(cli, ['search', '--format', 'json', '-'], { input: JSON.stringify(scenario) }));
  assert.ok(slices > 1);
  assert.equal(fromWasm.ok, true);
  assert.deepEqual(fromWasm.search, fromCli);
  assert.ok(fromCli.plans.length > 0);
});
