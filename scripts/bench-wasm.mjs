// Evaluations per second of a full report (memory + time + communication) in the WebAssembly
// build under Node: the same scenario as the native benchmark (engine/cli/bench.cpp), and where that benchmark is
// built, the ratio of the two (issue 31's target: 1.5). A measurement, never an assertion. Run after scripts/build.sh
// wasm (and native for the ratio).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const wasmDir = join(root, 'build-wasm', 'wasm');
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
const jsonUs = (ms * 1000) / n;
console.log(`wasm under Node ${process.version}: JSON in -> JSON report out  ${(n / (ms / 1000)).toFixed(0)} evaluations/s  (${jsonUs.toFixed(1)} us each)`);

// The plan search as the page runs it (SearchSession in slices of 400 plans): a 70B model on 1,024 GPUs over
// every dimension, Megatron, DeepSpeed and FSDP, offload allowed (as engine/cli/bench.cpp natively).
const search = JSON.stringify({
  framework: 'megatron',
  model: { preset: 'llama-3.1-70b' },
  training: { seq_len: 8192, micro_batch: 1, global_batch: 1024, recompute: 'selective' },
  hardware: { preset: 'h100-sxm-80gb' },
  search: { devices: 1024, frameworks: ['megatron', 'deepspeed', 'fsdp'],
    dimensions: ['tp', 'pp', 'vpp', 'sp', 'cp', 'ulysses', 'zero', 'micro_batch', 'recompute', 'offload'] },
});
const t0 = performance.now();
const session = new engine.SearchSession(search);
let slices = 0;
while (!session.done()) {
  session.step(400);
  slices += 1;
}
const result = JSON.parse(session.result());
session.delete();
if (!result.ok) throw new Error('benchmark search failed');
const seconds = (performance.now() - t0) / 1000;
const plans = result.search.counts.candidates;
console.log(`wasm under Node ${process.version}: search of ${plans} plans in ${seconds.toFixed(2)} s (${(plans / seconds).toFixed(0)} plans/s, ${slices} slices)`);

// The same two measurements natively (engine/cli/bench.cpp prints them among others), and WebAssembly over native.
const nativeBench = join(root, 'build', 'engine', 'shardcalc_bench');
if (existsSync(nativeBench)) {
  const lines = execFileSync(nativeBench).toString();
  const nativeJsonUs = Number(/JSON in -> JSON report out .*\(([\d.]+) us each\)/.exec(lines)?.[1]);
  const nativePlansPerS = Number(/^search \(.*\((\d+) plans\/s/m.exec(lines)?.[1]);
  console.log(`wasm over native, same machine: JSON in -> JSON report out ${(jsonUs / nativeJsonUs).toFixed(1)}x ` +
    `(${nativeJsonUs.toFixed(1)} us natively), search ${(nativePlansPerS * seconds / plans).toFixed(1)}x (${nativePlansPerS} plans/s natively)`);
}

// The serving plan search as the page's "Find a serving plan" asks it: Llama 3.1 70B on H100s, every weight and KV
// cache format, a time-per-token target.
const serving = JSON.stringify({
  model: { preset: 'llama-3.1-70b' },
  hardware: { preset: 'h100-sxm-80gb' },
  serving: { prompt_tokens: 2000, output_tokens: 500,
    search: { weights: ['model', 'fp8', 'int8', 'int4', 'nvfp4', 'mxfp4'], kv_cache_dtypes: ['auto', 'fp8'], tpot_ms: 50 } },
});
const s0 = performance.now();
const served = JSON.parse(engine.serve(serving, ''));
if (!served.ok) throw new Error('benchmark serving search failed');
console.log(`wasm under Node ${process.version}: serving plan search of ${served.serving.counts.tried} replicas in ${(performance.now() - s0).toFixed(0)} ms`);
