// Evaluations per second of a full report (memory + time + communication) in the WebAssembly
// build under Node: the same scenario as the native benchmark (engine/cli/bench.cpp).
// A measurement, never an assertion. Run after scripts/build.sh wasm.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const wasmDir = join(fileURLToPath(new URL('..', import.meta.url)), 'build-wasm', 'wasm');
const { default: createShardcalc } = await import(join(wasmDir, 'shardcalc.mjs'));
const engine = await createShardcalc({ wasmBinary: await readFile(join(wasmDir, 'shardcalc.wasm')) });
const scenario = JSON.stringify({
  framework: 'megatron',
  model: { preset: 'llama-3.1-70b' },
  training: { seq_len: 8192, micro_batch: 1, global_batch: 512, recompute: 'selective' },
  parallel: { dp: 16, tp: 8, pp: 4, vpp: 2, sp: true, distributed_optimizer: true },
  hardware: { preset: 'h100-sxm-80gb' },
});
if (!JSON.parse(engine.evaluate(scenario)).ok) throw new Error('benchmark scenario failed');
let n = 0;
const start = performance.now();
while (performance.now() - start < 1000) {
  for (let i = 0; i < 20; i += 1) engine.evaluate(scenario);
  n += 20;
}
const ms = performance.now() - start;
console.log(`wasm under Node ${process.version}: JSON in -> JSON report out  ${(n / (ms / 1000)).toFixed(0)} evaluations/s  (${((ms * 1000) / n).toFixed(1)} us each)`);
