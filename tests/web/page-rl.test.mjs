// "Post-train with RL" in real Chromium: opening the section runs the whole engine's RL estimate for the plan in the form
// (the plan as the actor, its sequence and batch from the section's fields) and shows each phase's memory, the step's
// time, the limits and verl's flags, the same numbers the CLI gives for the same scenario; a plan it does not model
// says why at the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliReport, close, link, open, root, useBrowser } from './harness.mjs';

const env = useBrowser();

const plan = { framework: 'fsdp', model: { preset: 'qwen3-8b' }, training: { seq_len: 4096, micro_batch: 4, recompute: 'full' },
  parallel: { dp: 8, zero: 3 }, hardware: { preset: 'h100-sxm-80gb' } };
const rlOf = (s) => JSON.parse(execFileSync(cli, ['rl', '--format', 'json', '-'], { input: JSON.stringify(s) }));

async function openRl(page) {
  await page.click('#rl-title');
  await page.waitForSelector('#rl[data-state="drawn"], #rl[data-state="error"]');
}

test('the RL section answers for the plan in the form as the CLI does, and follows its fields', async () => {
  const page = await open(env, link(plan));
  await openRl(page);
  assert.equal(await page.getAttribute('#rl', 'data-state'), 'drawn');
  // The actor is the page's resolved plan without its sequence and batch (the rl object's defaults set them).
  const actor = structuredClone(cliReport(plan).scenario);
  delete actor.training.seq_len;
  delete actor.training.global_batch;
  const want = rlOf({ ...actor, rl: { algorithm: 'grpo', prompts: 256, n: 8, prompt_tokens: 512, response_tokens: 1024, mean_response_tokens: 0, mini_batches: 1,
    rollout_tp: 1, gpu_memory_utilization: 0.5, reference: true, sleep: true, param_offload: false, reference_offload: false,
    optimizer_offload: false } });
  const shown = (key) => page.getAttribute(`[data-rl="${key}"]`, 'data-value');
  assert.equal(await shown('rollout.total_bytes'), String(want.memory.phases[0].total_bytes));
  assert.equal(await shown('training.actor_bytes'), String(want.memory.phases[2].actor_bytes));
  // The host memory each GPU's process holds (a sleeping engine's weights), and the node's, as the CLI gives them.
  assert.equal(await shown('training.host_bytes'), String(want.memory.phases[2].host_bytes));
  assert.ok(want.memory.host_per_node_bytes > 0);
  assert.match(await page.textContent('#rl-status'), /Host memory per node: [\d.,]+ GiB in the (log-probs|training) phase \(8 processes/);
  assert.equal(Number(await shown('time.step_seconds')), want.time.step_seconds);
  assert.match(await page.textContent('#rl-launch'), /actor_rollout_ref\.rollout\.n=8/);
  // The range of gpu_memory_utilization that fits, the engine's.
  assert.ok(want.limits.gpu_memory_utilization_max > want.limits.gpu_memory_utilization_min);
  assert.ok((await page.textContent('#rl-limits')).includes(`(gpu_memory_utilization) that fits: ${want.limits.gpu_memory_utilization_min.toFixed(2)} ` +
    `to ${want.limits.gpu_memory_utilization_max.toFixed(2)}.`));
  // A field changes the answer: rollout tp 2; the link carries it, and opens the section with it.
  await page.fill('#rl-rollout_tp', '2');
  await page.waitForFunction(() => document.querySelector('#rl-launch')?.textContent.includes('tensor_model_parallel_size=2'));
  await page.waitForFunction(() => window.location.hash.includes('rl='));
  const shared = await page.evaluate(() => window.location.hash);
  await close(page);
  const again = await open(env, shared);
  await again.waitForSelector('#rl[data-state="drawn"]');
  assert.equal(await again.inputValue('#rl-rollout_tp'), '2');
  assert.match(await again.textContent('#rl-launch'), /tensor_model_parallel_size=2/);
  await close(again);
});

test('RL settings that do not read are dropped from a link and named; the plan loads', async () => {
  const page = await open(env, '#v=2&rl=%7Bnot-json');
  await page.waitForSelector('#status[data-state="ready"]');
  assert.match(await page.textContent('#link-error'), /rl= \(the RL settings\) was dropped/);
  await close(page);
});

test('a plan the RL model does not cover is refused at its field, in words', async () => {
  const page = await open(env, link({ framework: 'megatron', model: { preset: 'llama-3.1-8b' }, training: { seq_len: 4096, micro_batch: 1 },
    parallel: { dp: 4, pp: 2 }, hardware: { preset: 'h100-sxm-80gb' } }));
  await openRl(page);
  assert.equal(await page.getAttribute('#rl', 'data-state'), 'error');
  assert.match(await page.textContent('#rl-status'), /\/parallel\/pp: .*one pipeline stage/);
  await close(page);
});

test('the phases are drawn as bars against the capacity, a segment for each part', async () => {
  const page = await open(env, link(plan));
  await openRl(page);
  const bars = await page.$$eval('#rl-chart svg g[data-phase]', (gs) => gs.map((g) => ({ phase: g.dataset.phase, segments: g.querySelectorAll('rect').length })));
  assert.deepEqual(bars.map((b) => b.phase), ['rollout', 'log_probs', 'training']);
  assert.ok(bars.every((b) => b.segments >= 2), JSON.stringify(bars));
  assert.match(await page.getAttribute('#rl-chart svg', 'aria-label'), /capacity of/);
  await (await page.$('#rl')).screenshot({ path: 'artifacts/screenshots/rl-section.png' });
  await close(page);
});

test('verl\'s dynamic batch size: a token budget changes the launch and the limits as the CLI gives them', async () => {
  const page = await open(env, link(plan));
  await openRl(page);
  await page.fill('#rl-max_token_len_per_gpu', '24000');
  await page.waitForFunction(() => document.querySelector('#rl-launch')?.textContent.includes('ppo_max_token_len_per_gpu=24000'));
  assert.match(await page.textContent('#rl-launch'), /actor_rollout_ref\.actor\.use_dynamic_bsz=True/);
  const actor = structuredClone(cliReport(plan).scenario);
  delete actor.training.seq_len;
  delete actor.training.global_batch;
  const want = rlOf({ ...actor, rl: { max_token_len_per_gpu: 24000 } });
  assert.ok(want.limits.max_token_len_per_gpu > 0);
  assert.ok((await page.textContent('#rl-limits')).includes(`token budget ${want.limits.max_token_len_per_gpu.toLocaleString('en-US')}`),
    await page.textContent('#rl-limits'));
  assert.equal(await page.getAttribute('[data-rl="training.actor_bytes"]', 'data-value'), String(want.memory.phases[2].actor_bytes));
  await close(page);
});

test('a pasted verl log is set against the estimate phase by phase as `shardcalc rl FILE LOG` does, and its mean response kept', async () => {
  const page = await open(env, link(plan));
  await openRl(page);
  // verl-project/verl#1208's step line (tests/data/logs): the page's own scenario against it, through the CLI too.
  const log = readFileSync(join(root, 'tests', 'data', 'logs', 'verl-issue1208.log'), 'utf8');
  const actor = structuredClone(cliReport(plan).scenario);
  delete actor.training.seq_len;
  delete actor.training.global_batch;
  const scenario = { ...actor, rl: { algorithm: 'grpo', prompts: 256, n: 8, prompt_tokens: 512, response_tokens: 1024, mean_response_tokens: 0,
    mean_prompt_tokens: 0, mini_batches: 1, max_token_len_per_gpu: 0, rollout_tp: 1, gpu_memory_utilization: 0.5, reference: true, sleep: true, param_offload: false,
    reference_offload: false, optimizer_offload: false } };
  const dir = mkdtempSync(join(tmpdir(), 'rl-log-'));
  writeFileSync(join(dir, 'verl.log'), log);
  const want = JSON.parse(execFileSync(cli, ['rl', '-', join(dir, 'verl.log'), '--format', 'json'], { input: JSON.stringify(scenario) }));
  await page.fill('#rl-log', log);
  await page.click('#rl-log-run');
  await page.waitForSelector('#rl[data-log="drawn"], #rl[data-log="error"]');
  assert.equal(await page.getAttribute('#rl', 'data-log'), 'drawn', await page.textContent('#rl-log-status'));
  const shown = await page.$$eval('#rl-log-table tbody tr', (rows) => rows.map((row) => [row.dataset.term, Number(row.cells[3].dataset.value)]));
  assert.deepEqual(shown, want.terms.map((t) => [t.key, t.gap]));
  assert.ok(shown.some(([key]) => key === 'generation_seconds'));
  assert.match(await page.textContent('#rl-log-status'), /What the log implies for the scenario: rl\.mean_prompt_tokens = 103; rl\.mean_response_tokens = 325/);
  // Kept: the fields take the log's means, the link carries them, and compared again the log implies no mean but, now
  // that the updates are timed at the run's lengths, the GEMM rate they took (its own keep, a test below).
  await page.click('#rl-log-keep');
  await page.waitForFunction(() => document.querySelector('#rl').dataset.log === 'drawn' &&
    !document.querySelector('#rl-log-status').textContent.includes('rl.mean_') &&
    document.querySelector('#rl-log-status').textContent.includes('hardware.matmul_efficiency'));
  assert.equal(await page.inputValue('#rl-mean_response_tokens'), '325');
  assert.equal(await page.inputValue('#rl-mean_prompt_tokens'), '103');
  await page.waitForFunction(() => decodeURIComponent(window.location.hash).includes('"mean_response_tokens":325,"mean_prompt_tokens":103'));
  // A log that is not verl's is refused in words.
  await page.fill('#rl-log', 'not a verl line');
  await page.click('#rl-log-run');
  await page.waitForSelector('#rl[data-log="error"]');
  assert.match(await page.textContent('#rl-log-status'), /^Not compared: \/log: no verl metrics line was found/);
  await close(page);
});

test('the GEMM efficiency the actor\'s logged updates imply is kept in the plan, and the RL estimate\'s updates then take the log\'s time', async () => {
  const page = await open(env, link(plan));
  await openRl(page);
  // A log whose updates take 1.5 times the estimate's, its responses at the scenario's length (nothing else to keep).
  const actor = structuredClone(cliReport(plan).scenario);
  delete actor.training.seq_len;
  delete actor.training.global_batch;
  const estimate = rlOf({ ...actor, rl: {} });
  const updates = 1.5 * estimate.time.training_seconds;
  const log = `step:1 - timing_s/update_actor:${updates} - response_length/mean:1024\n`;
  await page.fill('#rl-log', log);
  await page.click('#rl-log-run');
  await page.waitForSelector('#rl[data-log="drawn"]');
  assert.equal(await page.isHidden('#rl-log-keep'), false);
  const status = await page.textContent('#rl-log-status');
  const efficiency = Number(/hardware\.matmul_efficiency = ([\d.]+)/.exec(status)?.[1]);
  assert.ok(efficiency > 0 && efficiency < 1, status);
  await page.click('#rl-log-keep');
  await page.waitForFunction(() => decodeURIComponent(window.location.hash).includes('hardware.matmul_efficiency='));
  // The plan now carries it; compared again with the new estimate, the updates take the log's time.
  await page.waitForFunction((u) => {
    const cell = document.querySelector('#rl-log-table tr[data-term="update_actor_seconds"] td[data-value]');
    return document.querySelector('#rl').dataset.log === 'drawn' && cell && Math.abs(Number(cell.dataset.value)) <= 1e-3 * u;
  }, updates);
  await close(page);
});
