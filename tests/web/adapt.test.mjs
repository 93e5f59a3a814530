// Every first try answers, for every preset pair: the page's own choice logic (web/src/js/adapt.js, with the page's
// state in web/src/js/state.js) run in Node against the whole WebAssembly engine. From the default page's plan, the
// reader chooses each device preset, then each model preset; the plan must end up one the engine evaluates, and every
// move must be to a value the engine named valid. page-first-try.test.mjs checks the same in Chromium for a sample
// of pairs through the form itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { adaptToChoice, suggestion } from '../../web/src/js/adapt.js';
import { defaultState, effective, setField, setPreset, toScenario } from '../../web/src/js/state.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const wasmDir = join(root, 'build-wasm', 'wasm');
const { default: createShardcalc } = await import(join(wasmDir, 'shardcalc.mjs'));
const whole = await createShardcalc({ wasmBinary: await readFile(join(wasmDir, 'shardcalc.wasm')) });
// The page's engine interface (js/engine-client.js) over the whole engine: objects in, objects out.
const engine = {
  evaluate: async (scenario) => JSON.parse(whole.evaluate(JSON.stringify(scenario))),
  choices: async (request) => JSON.parse(whole.choices(JSON.stringify(request))),
};
const presets = JSON.parse(whole.presets());

// The page's plan as adapt.js reads and moves it (app.js planFields): the form's value, else the last answer's.
function planOf(entries, report) {
  return {
    scenario: () => toScenario(entries),
    value: (path) => effective(presets, entries, path) ?? path.split('.').reduce((o, k) => o?.[k], report?.scenario),
    set: (path, value) => setField(presets, entries, path, value),
  };
}

// One choice of a preset, as app.js onInput makes it: the preset, then the moves.
async function choose(entries, section, id) {
  const before = await engine.evaluate(toScenario(entries));
  const report = before.ok ? before.report : null;
  setPreset(presets, entries, section, id, []);
  return adaptToChoice(engine, planOf(entries, report), report?.derived?.world_size, section === 'hardware');
}

test('every device preset, then every model preset, from the default page: the engine evaluates the plan', async () => {
  const failures = [];
  let moved = 0;
  for (const device of presets.hardware) {
    for (const model of presets.models) {
      const { entries } = defaultState();
      const changes = [...await choose(entries, 'hardware', device.id), ...await choose(entries, 'model', model.id)];
      moved += changes.length > 0;
      const answer = await engine.evaluate(toScenario(entries));
      if (!answer.ok) failures.push(`${model.id} on ${device.id}: ${(answer.errors || [answer.error]).map((e) => `${e.path} ${e.message}`).join('; ')}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(moved > presets.hardware.length, 'the loop exercised moves, not only plans that already fitted');
});

test('moves go to the nearest value the engine accepts, and dp keeps the devices a smaller tp frees', async () => {
  const { entries } = defaultState();
  const changes = await choose(entries, 'model', 'falcon-7b'); // 71 heads: tp 4 cannot stay
  assert.deepEqual(changes.map(({ path, from, to }) => [path, from, to]), [['parallel.tp', 4, 1], ['parallel.dp', 2, 8]]);
  assert.match(changes[0].reason, /must divide model\.heads \(71\)/);
  // A sequence far above the model's positions: the largest halving it takes, not a step of one at a time.
  const gpt2 = defaultState().entries;
  const moves = await choose(gpt2, 'model', 'gpt2');
  assert.deepEqual(moves.map(({ path, to }) => [path, to]), [['training.seq_len', 1024]]);
  // A TPU: the framework it runs, then sequence parallelism off (xla models data and tensor parallelism only).
  const tpu = defaultState().entries;
  const tpuMoves = await choose(tpu, 'hardware', 'tpu-v4');
  assert.deepEqual(tpuMoves.map(({ path, from, to }) => [path, from, to]), [['framework', 'megatron', 'xla'], ['parallel.sp', true, false]]);
});

test('a suggestion is only ever a value the engine accepts, or none', async () => {
  const { entries } = defaultState();
  setField(presets, entries, 'parallel.tp', 3);
  const scenario = toScenario(entries);
  const value = await suggestion(engine, scenario, 'parallel.tp', 3);
  assert.equal(value, 2);
  const fixed = structuredClone(scenario);
  fixed.parallel.tp = value;
  assert.equal((await engine.evaluate(fixed)).ok, true);
  // Nothing lies below 1: a micro-batch of 0 goes up to the first value the engine accepts.
  assert.equal(await suggestion(engine, scenario, 'training.micro_batch', 0), 1);
  // A value with nothing valid near it either way (tp beyond any divisor of the heads, past the engine's window).
  assert.equal(await suggestion(engine, scenario, 'parallel.tp', 1_000_000), 8);
});
