// "Compare with my run" in real Chromium: a real log (tests/data/logs, each with its published source), pasted or
// chosen as a file, is set beside the page's plan by the engine, with the CLI's numbers (`shardcalc reconcile`);
// the comparison follows the unit and the plan; a log with nothing to read says so; the log goes nowhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliReport, close, expectMetric, link, open, root, useBrowser } from './harness.mjs';

const env = useBrowser();
const LOG = join(root, 'tests', 'data', 'logs', 'megatron-lm-pr5662.log');
const PLAN = JSON.parse(readFileSync(join(root, 'examples', 'llama-3.1-70b-h100.json'), 'utf8'));

// The CLI's reconciliation of `log` against `scenario`.
function cliReconcile(scenario, log) {
  const dir = mkdtempSync(join(tmpdir(), 'reconcile-'));
  writeFileSync(join(dir, 's.json'), JSON.stringify(scenario));
  return JSON.parse(execFileSync(cli, ['reconcile', join(dir, 's.json'), log, '--format', 'json']));
}

const cells = (page) => page.$$eval('#reconcile-table td[data-reconcile]', (tds) =>
  Object.fromEntries(tds.map((td) => [td.dataset.reconcile, [Number(td.dataset.value), td.textContent]])));

test('a pasted Megatron-LM log: each reported rank beside the estimate, as the CLI reconciles it, in the page\'s unit', async () => {
  const page = await open(env, link(PLAN));
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.click('#reconcile summary');
  await page.waitForSelector('#reconcile[data-state="ready"]');  // its code fetched and wired
  await page.fill('#run-log', readFileSync(LOG, 'utf8'));
  await page.click('#reconcile-run');
  await page.waitForSelector('#reconcile[data-state="drawn"]');
  const expected = cliReconcile(PLAN, LOG);
  const shown = await cells(page);
  const rank = expected.ranks[0];
  for (const key of ['peak_allocated', 'allocator_reserve', 'peak_reserved'])
    for (const part of ['log', 'estimate', 'gap']) {
      const [value, text] = shown[`ranks.0.${key}.${part}`];
      assert.ok(Math.abs(value - rank[key][part]) <= 1e-6 * Math.abs(rank[key][part]), `${key}.${part}: ${value} vs ${rank[key][part]}`);
      assert.equal(text, (rank[key][part] / 2 ** 30).toFixed(2));
    }
  const notes = await page.$$eval('#reconcile-notes li', (lis) => lis.map((li) => li.textContent));
  assert.match(notes[0], /^Step time: log 744 ms \(one report\), estimate [\d.]+ s \(\+[\d,.]+ %\)\.$/);
  assert.ok(notes.some((n) => /^The log cannot tell memory outside PyTorch's allocator/.test(n)));
  assert.match(await page.textContent('#reconcile-status'), /^Megatron-LM log: one rank reported memory\.$/);
  // In GB, the same numbers in the other unit.
  await page.selectOption('#unit', 'GB');
  await page.waitForFunction(() => /\(GB\)/.test(document.querySelector('#reconcile-table thead')?.textContent || ''));
  const [, gb] = (await cells(page))['ranks.0.peak_allocated.log'];
  assert.equal(gb, (rank.peak_allocated.log / 1e9).toFixed(2));
  // What the log implies for this cluster: its allocator reserve over its peak, kept in the plan and its link.
  const fraction = expected.calibration['implementation.fragmentation'];
  assert.ok(fraction > 0 && fraction < 1);
  await page.click('#reconcile-calibrate');
  await page.waitForFunction((f) => decodeURIComponent(window.location.hash).includes(`implementation.fragmentation=${f}`), fraction);
  const kept = structuredClone(PLAN);
  kept.implementation = { ...(kept.implementation || {}), fragmentation: fraction };
  await expectMetric(page, 'memory.per_device.total', cliReport(kept).memory.per_device.total);
  // The log went nowhere: no request after the page's own files carried it.
  assert.ok(requests.every((u) => u.startsWith(env.server.url)), requests.join(', '));
  await close(page);
});

test('a log chosen as a file is compared; a log with nothing to read says so; a new plan compares again', async () => {
  const page = await open(env, link(PLAN));
  await page.click('#reconcile summary');
  await page.waitForSelector('#reconcile[data-state="ready"]');
  await page.setInputFiles('#run-log-file', LOG);
  await page.waitForSelector('#reconcile[data-state="drawn"]');
  assert.match(await page.inputValue('#run-log'), /memory \(MB\)/);
  const before = (await cells(page))['ranks.0.peak_allocated.estimate'][0];
  // A new plan: the comparison is made again against it.
  await page.fill('#f-training-micro_batch', '2');
  await page.waitForFunction((b) => {
    const td = document.querySelector('#reconcile-table td[data-reconcile="ranks.0.peak_allocated.estimate"]');
    return td && Number(td.dataset.value) !== b;
  }, before);
  const plan2 = structuredClone(PLAN);
  plan2.training.micro_batch = 2;
  const [after] = (await cells(page))['ranks.0.peak_allocated.estimate'];
  const expected = cliReconcile(plan2, LOG).ranks[0].peak_allocated.estimate;
  assert.ok(Math.abs(after - expected) <= 1e-6 * expected, `${after} vs ${expected}`);
  // PyTorch's memory_summary table: its peaks, as the CLI reads them.
  const SUMMARY = join(root, 'tests', 'data', 'logs', 'unsloth-memory-summary.log');
  await page.fill('#run-log', readFileSync(SUMMARY, 'utf8'));
  await page.click('#reconcile-run');
  await page.waitForFunction(() => /^PyTorch \(memory_summary\) log: one rank/.test(document.querySelector('#reconcile-status').textContent));
  const peak = cliReconcile(plan2, SUMMARY).ranks[0].peak_reserved.log;
  assert.equal((await cells(page))['ranks.0.peak_reserved.log'][0], peak);
  // Text with no line any reader knows.
  await page.fill('#run-log', 'hello\nworld\n');
  await page.click('#reconcile-run');
  await page.waitForFunction(() => /^No comparison: /.test(document.querySelector('#reconcile-status').textContent));
  assert.equal(await page.locator('#reconcile-table tr').count(), 0);
  await close(page);
});

test('an out-of-memory error: its own table as the CLI reads it, and the device\'s capacity kept for the cluster', async () => {
  // stanford_alpaca #223 (tests/data/logs/README.md): LLaMA-7B with FSDP on five V100-32GB.
  const plan = {
    framework: 'fsdp', model: { preset: 'llama-2-7b' }, hardware: { preset: 'v100-sxm-32gb' },
    training: { seq_len: 512, micro_batch: 1, global_batch: 40, dtype: 'fp16' }, parallel: { dp: 5, zero: 3 },
  };
  const OOM = join(root, 'tests', 'data', 'logs', 'pytorch-oom-alpaca-issue223.log');
  const page = await open(env, link(plan));
  await page.click('#reconcile summary');
  await page.waitForSelector('#reconcile[data-state="ready"]');
  await page.fill('#run-log', readFileSync(OOM, 'utf8'));
  await page.click('#reconcile-run');
  await page.waitForSelector('#reconcile[data-state="drawn"]');
  const expected = cliReconcile(plan, OOM).ranks[0].out_of_memory;
  const shown = await page.$$eval('#reconcile-oom td[data-reconcile]', (tds) =>
    Object.fromEntries(tds.map((td) => [td.dataset.reconcile, [td.dataset.value, td.textContent]])));
  for (const key of ['request', 'allocated', 'cached', 'free', 'capacity'])
    assert.equal(Number(shown[`ranks.0.out_of_memory.${key}`][0]), expected[key], key);
  assert.equal(Number(shown['ranks.0.out_of_memory.needed.log'][0]), expected.needed.log);
  assert.equal(Number(shown['ranks.0.out_of_memory.needed.gap'][0]), expected.needed.gap);
  assert.equal(shown['ranks.0.out_of_memory.cause'][1], 'fragmentation');
  assert.equal(shown['ranks.0.out_of_memory.request'][1], (388 / 1024).toFixed(2));  // GiB, the page's unit
  assert.equal(await page.locator('#reconcile-table tr').count(), 0);  // no peaks: no rank table
  assert.match(await page.textContent('#reconcile-status'), /^PyTorch \(out-of-memory error\) log: one rank reported memory\. One ran out of memory\.$/);
  const notes = await page.$$eval('#reconcile-notes li', (lis) => lis.map((li) => li.textContent));
  assert.ok(notes.some((n) => /^Rank 3 ran out of memory asking for 388\.00 MiB/.test(n)), notes.join('\n'));
  // The device's capacity as CUDA reported it, kept in the plan and its link.
  await page.click('#reconcile-calibrate');
  await page.waitForFunction(() => decodeURIComponent(window.location.hash).includes('hardware.memory_gib=31.75'));
  const kept = structuredClone(plan);
  kept.hardware.memory_gib = 31.75;
  await expectMetric(page, 'memory.capacity', cliReport(kept).memory.capacity);
  await close(page);
});

test('a step time: the GEMM efficiency it implies, kept for the cluster, makes the page\'s step the log\'s', async () => {
  const step = cliReport(PLAN).time.step_seconds;
  const ms = (1.3 * step * 1e3).toFixed(3);
  const log = `elapsed time per iteration (ms): ${ms}\nelapsed time per iteration (ms): ${ms}\n`;
  const page = await open(env, link(PLAN));
  await page.click('#reconcile summary');
  await page.waitForSelector('#reconcile[data-state="ready"]');
  await page.fill('#run-log', log);
  await page.click('#reconcile-run');
  await page.waitForSelector('#reconcile[data-state="drawn"]');
  const calibration = JSON.parse(execFileSync(cli, ['reconcile', join(root, 'examples', 'llama-3.1-70b-h100.json'), '-', '--format', 'json'],
    { input: log })).calibration;
  const efficiency = calibration['hardware.matmul_efficiency'];
  assert.ok(efficiency > 0 && efficiency < 1, String(efficiency));
  const notes = await page.$$eval('#reconcile-notes li', (lis) => lis.map((li) => li.textContent));
  assert.ok(notes.some((n) => n.includes('its GEMMs reach')), notes.join('\n'));
  await page.click('#reconcile-calibrate');
  await page.waitForFunction((e) => decodeURIComponent(window.location.hash).includes(`hardware.matmul_efficiency=${e}`), efficiency);
  const kept = structuredClone(PLAN);
  kept.hardware = { ...kept.hardware, matmul_efficiency: efficiency, matmul_efficiency_fp8: calibration['hardware.matmul_efficiency_fp8'] };
  const calibrated = cliReport(kept);
  await expectMetric(page, 'time.step_seconds', calibrated.time.step_seconds);
  assert.ok(Math.abs(calibrated.time.step_seconds - 1.3 * step) <= 1e-3 * step);
  await close(page);
});
