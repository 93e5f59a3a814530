// The page in real Chromium (Debian's, driven by playwright-core): every number must be the
// CLI's, links must round-trip, and nothing may reach another origin. Screenshots go to
// artifacts/screenshots/. Needs web/dist (scripts/build-web.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import {
  DEFAULTS, V1_DEFAULTS, cli, cliReport, close, cspViolations, dist, expectMetric, link, open, root, shots, useBrowser,
} from './harness.mjs';
import { duration } from '../../web/src/js/format.js';

// Playwright's default viewport (1280×720), the size these tests were written at, unless one is given.
const env = useBrowser({ viewport: { width: 1280, height: 720 } });

async function metrics(page) {
  return page.$$eval('[data-metric]', (nodes) => Object.fromEntries(nodes.map((n) => [n.dataset.metric, n.dataset.value])));
}

async function expectStages(page, report) {
  await expectMetric(page, 'memory.per_device.total', report.memory.per_device.total);
  for (const [i, stage] of report.memory.stages.entries())
    for (const field of ['weights', 'gradients', 'optimizer', 'activations', 'allocated', 'other_detail.fragmentation', 'reserved', 'total'])
      await expectMetric(page, `memory.stages.${i}.${field}`, field.split('.').reduce((o, k) => o[k], stage));
  await expectMetric(page, 'parameters.total', report.parameters.total);
}

test('defaults load and match the CLI', async () => {
  const page = await open(env);
  const report = cliReport(DEFAULTS);
  await expectStages(page, report);
  await expectMetric(page, 'derived.world_size', report.derived.world_size);
  const shown = await metrics(page);
  for (const [metric, value] of Object.entries(shown))
    assert.ok(value !== undefined && !/NaN|Infinity|undefined/.test(value), `${metric} = ${value}`);
  const text = await page.textContent('body');
  assert.ok(!/\bNaN\b|Infinity|undefined/.test(text), 'no NaN/Infinity/undefined on the page');
  await page.screenshot({ path: join(shots, 'default-light.png'), fullPage: true });
  await close(page);
});

test('LLaMA-3.1-70B on H100s, tp=8 pp=4, then recompute and ZeRO: per-stage numbers equal the CLI', async () => {
  const page = await open(env);
  await page.selectOption('#f-model-preset', 'llama-3.1-70b');
  await page.fill('#f-parallel-tp', '8');
  await page.fill('#f-parallel-pp', '4');
  const scenario = structuredClone(DEFAULTS);
  scenario.model.preset = 'llama-3.1-70b';
  Object.assign(scenario.parallel, { tp: 8, pp: 4 });
  const report = cliReport(scenario);
  assert.equal(report.memory.stages.length, 4);
  await expectStages(page, report);
  assert.equal(await page.locator('#stage-table tbody tr').count(), 4);
  assert.ok((await page.locator('#module-table [data-metric$=".activation_bytes"]').count()) > 5);
  await expectMetric(page, 'modules.4.activation_bytes', report.modules[4].activation_bytes);

  await page.selectOption('#f-training-recompute', 'full');
  scenario.training.recompute = 'full';
  await expectStages(page, cliReport(scenario));

  await page.selectOption('#f-framework', 'deepspeed');
  await page.selectOption('#f-parallel-zero', '1');
  scenario.framework = 'deepspeed';
  scenario.parallel.zero = 1;
  await expectStages(page, cliReport(scenario));
  await page.screenshot({ path: join(shots, 'llama-70b-tp8-pp4.png'), fullPage: true });
  await close(page);
});

test('a copied share link opens elsewhere with identical numbers', async () => {
  const page = await open(env);
  await page.selectOption('#f-model-preset', 'llama-3.1-70b');
  await page.fill('#f-parallel-tp', '8');
  await page.fill('#f-parallel-pp', '4');
  await page.selectOption('#unit', 'GB');
  const scenario = structuredClone(DEFAULTS);
  scenario.model.preset = 'llama-3.1-70b';
  Object.assign(scenario.parallel, { tp: 8, pp: 4 });
  await expectStages(page, cliReport(scenario));
  await page.click('#copy-link');
  await page.waitForFunction(() => document.querySelector('#share-url')?.value.includes('#'));
  const link = await page.inputValue('#share-url');
  assert.ok(link.startsWith(env.server.url), link);
  assert.ok(link.length < 200, `compact link: ${link}`);
  const before = await metrics(page);
  const shownText = await page.textContent('#stage-table');

  const other = await open(env, link.slice(env.server.url.length));
  await expectStages(other, cliReport(scenario));
  assert.deepEqual(await metrics(other), before);
  assert.equal(await other.textContent('#stage-table'), shownText, 'same unit and formatting');
  assert.equal(await other.inputValue('#f-parallel-tp'), '8');
  await close(other);
  await close(page);
});

test('#scenario= links take the engine public field names', async () => {
  const scenario = JSON.parse(await readFile(join(root, 'examples', 'llama-3.1-70b-h100.json'), 'utf8'));
  const page = await open(env, `#scenario=${encodeURIComponent(JSON.stringify(scenario))}`);
  await expectStages(page, cliReport(scenario));
  await close(page);
});

test('embed mode: compact results, iframe snippet and Markdown', async () => {
  const scenario = { model: { preset: 'llama-2-13b' }, parallel: { tp: 2, pp: 2 }, training: { seq_len: 4096 } };
  const page = await open(env, `?embed=1#scenario=${encodeURIComponent(JSON.stringify(scenario))}`, { viewport: { width: 800, height: 600 } });
  assert.ok(await page.evaluate(() => document.body.classList.contains('embed')));
  await expectStages(page, cliReport(scenario));
  assert.equal(await page.isVisible('#f-parallel-tp'), false, 'no form in embed mode');
  // The embed is what was shared: no Share block, only the way to the full page (tests/web/page-embed.test.mjs).
  assert.equal(await page.isVisible('#copy-iframe'), false);
  assert.equal(await page.isVisible('#open-full'), true);
  await page.waitForFunction(() => document.querySelector('#markdown-output')?.value.includes('|'));
  const md = await page.inputValue('#markdown-output');
  assert.match(md, /\| *[Ss]tage/);
  assert.match(md, /GiB|GB/);
  await page.screenshot({ path: join(shots, 'embed.png') });
  await close(page);
});

test('the single-file build works opened from file://', async () => {
  const file = pathToFileURL(join(dist, 'shardcalc-standalone.html')).href;
  const page = await open(env, '', { base: file });
  await expectStages(page, cliReport(DEFAULTS));
  // The engine runs in the blob: worker, not on the main thread (the glue once failed there: "Invalid URL").
  assert.equal(await page.getAttribute('body', 'data-engine-thread'), 'worker');
  await page.fill('#f-parallel-tp', '2');
  const scenario = structuredClone(DEFAULTS);
  scenario.parallel.tp = 2;
  await expectStages(page, cliReport(scenario));
  await page.screenshot({ path: join(shots, 'standalone-file.png') });
  await close(page);
});

test('a malformed link shows what was wrong and falls back to the defaults', async () => {
  for (const fragment of ['#scenario=%7Bnot-json', '#v=9&parallel.tp=2']) {
    const page = await open(env, fragment);
    const message = await page.textContent('#link-error');
    assert.ok(message && message.trim().length > 10, `${fragment}: ${message}`);
    await expectStages(page, cliReport(DEFAULTS));
    await close(page);
  }
});

test('a link with one bad field loads every other field and names the bad one; unknown keys are ignored', async () => {
  // v=1: the old defaults, with the readable field applied.
  let page = await open(env, '#v=1&parallel.tp=eight&parallel.dp=2');
  assert.match(await page.textContent('#link-error'), /parallel\.tp/);
  const old = structuredClone(V1_DEFAULTS);
  old.parallel.dp = 2;
  await expectStages(page, cliReport(old));
  await close(page);
  page = await open(env, '#v=2&bogus.key=1&parallel.pp=2&model.preset=llama-3.1-70b');
  assert.match(await page.textContent('#link-error'), /bogus\.key.*ignored/);
  const plan = structuredClone(DEFAULTS);
  plan.parallel.pp = 2;
  plan.model.preset = 'llama-3.1-70b';
  await expectStages(page, cliReport(plan));
  // The share link drops what could not be read and keeps the rest.
  const shared = await page.inputValue('#share-url');
  assert.doesNotMatch(shared, /bogus/);
  assert.match(shared, /parallel\.pp=2/);
  await close(page);
});

test('a bad input shows the engine error next to its field', async () => {
  const page = await open(env);
  await page.fill('#f-parallel-tp', '3');
  const error = page.locator('[data-error-for="/parallel/tp"]');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.textContent(), /must divide/);
  assert.equal(await page.getAttribute('#f-parallel-tp', 'aria-invalid'), 'true');
  await page.waitForSelector('#status[data-state="error"]');
  await page.screenshot({ path: join(shots, 'input-error.png') });
  await page.fill('#f-parallel-tp', '2');
  await page.waitForSelector('#status[data-state="ready"]');
  assert.equal(await error.isVisible().catch(() => false), false);
  await close(page);
});

test('a number typed beyond a double (1e400) is an error at its field, never an emptied field', async () => {
  const page = await open(env);
  assert.equal(await page.getAttribute('body', 'data-engine-thread'), 'worker');
  const tp = page.locator('#f-parallel-tp');
  await tp.fill('');
  await tp.pressSequentially('1e400');
  const error = page.locator('[data-error-for="/parallel/tp"]');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.textContent(), /must be an integer from 1 to \d+, got "(1e400|not a finite number)"/);
  await page.waitForSelector('#status[data-state="error"]');
  await tp.fill('2');
  await page.waitForSelector('#status[data-state="ready"]');
  await close(page);
});

test('a Hugging Face config.json fills the model fields', async () => {
  const page = await open(env);
  const config = {
    architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336,
    num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000,
    max_position_embeddings: 32768, hidden_act: 'silu', rms_norm_eps: 1e-5, tie_word_embeddings: false,
    rope_theta: 10000.0, sliding_window: 4096, torch_dtype: 'bfloat16', some_new_knob: 3,
  };
  await page.fill('#hf-config', JSON.stringify(config));
  await page.click('#hf-import');
  // The vocabulary is the field that tells Mistral from the default Llama 3.1 8B (same layers, heads, FFN).
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000');
  assert.equal(await page.inputValue('#f-model-layers'), '32');
  assert.equal(await page.inputValue('#f-model-kv_heads'), '8');
  assert.equal(await page.inputValue('#f-model-ffn_hidden'), '14336');
  assert.match(await page.textContent('#hf-import-message'), /some_new_knob/);
  const mistral = cliReport({ ...DEFAULTS, model: { preset: 'mistral-7b' } });
  await expectMetric(page, 'parameters.total', mistral.parameters.total);
  await close(page);
});

test('dark theme and a phone screen render', async () => {
  const dark = await open(env, '', { colorScheme: 'dark' });
  await dark.screenshot({ path: join(shots, 'default-dark.png'), fullPage: true });
  await close(dark);
  const phone = await open(env, '', { viewport: { width: 390, height: 844 } });
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal page scroll on a phone (overflow ${overflow}px)`);
  await phone.screenshot({ path: join(shots, 'phone.png'), fullPage: true });
  await close(phone);
});

// ---- Time and communication --------------------------------------------------------------

// LLaMA-3.1-70B on H100s with tp=8, pp=4, dp=2 and a global batch of 16, as an engine scenario.
function plan70b() {
  const scenario = structuredClone(DEFAULTS);
  scenario.model.preset = 'llama-3.1-70b';
  Object.assign(scenario.parallel, { tp: 8, pp: 4, dp: 2 });
  scenario.training.global_batch = 16;
  return scenario;
}

async function fillPlan70b(page) {
  await page.selectOption('#f-model-preset', 'llama-3.1-70b');
  await page.fill('#f-parallel-tp', '8');
  await page.fill('#f-parallel-pp', '4');
  await page.fill('#f-parallel-dp', '2');
  await page.fill('#f-training-global_batch', '16');
}

// Step time, throughput, every breakdown part and every collective's exposed time.
async function expectTime(page, report) {
  await expectMetric(page, 'time.step_seconds', report.time.step_seconds);
  await expectMetric(page, 'time.mfu', report.time.mfu);
  await expectMetric(page, 'time.hfu', report.time.hfu);
  await expectMetric(page, 'throughput.tokens_per_second', report.throughput.tokens_per_second);
  await expectMetric(page, 'throughput.tflops_per_device', report.throughput.tflops_per_device);
  await expectMetric(page, 'pipeline.bubble_fraction', report.pipeline.bubble_fraction);
  for (const [name, seconds] of Object.entries(report.time.breakdown))
    if (seconds > 0) await expectMetric(page, `time.breakdown.${name}`, seconds);
    else assert.equal(await page.locator(`#time-table [data-part="${name}"]`).count(), 0, `${name} takes no time: no row`);
  for (const [i, c] of report.communication.entries()) {
    await expectMetric(page, `communication.${i}.exposed_seconds`, c.exposed_seconds);
    await expectMetric(page, `communication.${i}.volume_per_iteration`, c.volume_per_iteration);
  }
  for (const [dim, d] of Object.entries(report.communication_summary)) {
    await expectMetric(page, `communication_summary.${dim}.volume_per_iteration`, d.volume_per_iteration);
    await expectMetric(page, `communication_summary.${dim}.exposed_seconds`, d.exposed_seconds);
  }
}

async function openMore(page, section) {
  const details = page.locator(`#section-${section} details.more`);
  if (!(await details.getAttribute('open').then((v) => v !== null))) await details.locator('summary').click();
}

test('time and communication for LLaMA-3.1-70B tp=8 pp=4 dp=2 equal the CLI; Gantt and roofline follow the report', async () => {
  const page = await open(env);
  await fillPlan70b(page);
  const report = cliReport(plan70b());
  assert.ok(report.communication.length > 0 && report.pipeline.timeline_complete);
  await expectStages(page, report);
  await expectTime(page, report);

  // The step bar and the table: one segment and one row per part that takes time (zero parts left out).
  const parts = Object.entries(report.time.breakdown);
  assert.ok(parts.some(([, v]) => v === 0), 'this plan has parts that take no time');
  assert.equal(await page.locator('#time-chart rect.seg').count(), parts.filter(([, v]) => v > 0).length);
  assert.equal(await page.locator('#time-table tbody tr').count(), parts.filter(([, v]) => v > 0).length);
  assert.equal(await page.locator('#comm-table tbody tr:not(.subtotal)').count(), report.communication.length);
  assert.equal(await page.locator('#comm-table tr.subtotal').count(), new Set(report.communication.map((c) => c.dimension)).size);

  // Gantt: one row per stage, every timeline event one block with its title, F and B both drawn.
  const t = report.pipeline.timeline;
  assert.equal(await page.locator('#gantt .gantt-row').count(), report.pipeline.stages.length);
  const forward = t.kind.filter((k) => k === 'F').length;
  assert.ok(forward > 0 && forward < t.kind.length);
  assert.equal(await page.locator('#gantt rect.block-F').count(), forward);
  assert.equal(await page.locator('#gantt rect.block-B').count(), t.kind.length - forward);
  assert.equal(await page.locator('#gantt rect.block > title').count(), report.pipeline.timeline_events);
  const first = await page.locator('#gantt .gantt-row[data-stage="0"] rect.block > title').first().textContent();
  assert.match(first, /^stage 0, F microbatch 0 chunk 0, 0–[\d.]+ (s|ms)$/);

  // Roofline: one dot per op with forward FLOPs.
  const ops = report.modules.filter((m) => m.kind === 'op' && m.fwd_flops > 0);
  assert.ok(ops.length > 3);
  assert.equal(await page.locator('#roofline circle.dot').count(), ops.length);
  assert.match(await page.textContent('#roofline'), /Arithmetic intensity \(FLOP\/byte\)/);

  const text = await page.textContent('#time-section');
  assert.ok(!/\bNaN\b|Infinity|undefined|null/.test(text), 'no NaN/Infinity/undefined/null in the time section');
  assert.ok(text.includes(report.flops.convention), 'the FLOPs convention is shown');
  await page.locator('#time-section').screenshot({ path: join(shots, 'time-light.png') });
  await close(page);
});

test('train_tokens and price_per_gpu_hour add the training run: days, GPU-hours and cost equal the CLI', async () => {
  const page = await open(env);
  await page.fill('#f-training-train_tokens', '1e12');
  await page.fill('#f-hardware-price_per_gpu_hour', '2');
  const scenario = structuredClone(DEFAULTS);
  scenario.training.train_tokens = 1e12;
  scenario.hardware.price_per_gpu_hour = 2;
  const report = cliReport(scenario);
  assert.ok(report.training_run.cost > 0);
  for (const field of ['gpu_hours', 'cost', 'days', 'tokens'])
    await expectMetric(page, `training_run.${field}`, report.training_run[field]);
  await expectTime(page, report);
  await page.fill('#f-training-train_tokens', '');
  await page.waitForFunction(() => !document.querySelector('[data-metric="training_run.gpu_hours"]'));
  await close(page);
});

test('the new fields round-trip through a copied share link', async () => {
  const page = await open(env);
  await fillPlan70b(page);
  await page.fill('#f-training-train_tokens', '2e12');
  await page.fill('#f-hardware-price_per_gpu_hour', '2.5');
  await openMore(page, 'parallel');
  await page.selectOption('#f-parallel-schedule', 'gpipe');
  await openMore(page, 'hardware');
  assert.equal(await page.inputValue('#f-hardware-matmul_efficiency'), '0.8', 'preset value shown');
  await page.fill('#f-hardware-matmul_efficiency', '0.7');
  await page.fill('#f-hardware-inter_node_gbps', '25');
  await page.fill('#f-hardware-sm_count', '114');
  const scenario = plan70b();
  scenario.training.train_tokens = 2e12;
  scenario.parallel.schedule = 'gpipe';
  Object.assign(scenario.hardware, { price_per_gpu_hour: 2.5, matmul_efficiency: 0.7, inter_node_gbps: 25, sm_count: 114 });
  const report = cliReport(scenario);
  await expectStages(page, report);
  await expectTime(page, report);
  await expectMetric(page, 'training_run.cost', report.training_run.cost);
  assert.ok(await page.locator('[data-field="hardware.matmul_efficiency"]').evaluate((n) => n.classList.contains('is-override')));

  await page.click('#copy-link');
  await page.waitForFunction(() => document.querySelector('#share-url')?.value.includes('schedule'));
  const link = await page.inputValue('#share-url');
  for (const key of ['training.train_tokens=2000000000000', 'parallel.schedule=gpipe', 'hardware.price_per_gpu_hour=2.5',
    'hardware.matmul_efficiency=0.7', 'hardware.inter_node_gbps=25', 'hardware.sm_count=114'])
    assert.ok(link.includes(key), `${key} in ${link}`);
  const before = await metrics(page);
  assert.ok(Object.keys(before).some((k) => k.startsWith('communication.')));

  const other = await open(env, link.slice(env.server.url.length));
  await expectStages(other, report);
  await expectTime(other, report);
  assert.deepEqual(await metrics(other), before);
  assert.equal(await other.inputValue('#f-parallel-schedule'), 'gpipe');
  assert.equal(await other.inputValue('#f-training-train_tokens'), '2000000000000');
  assert.equal(await other.inputValue('#f-hardware-price_per_gpu_hour'), '2.5');
  assert.equal(await other.inputValue('#f-hardware-matmul_efficiency'), '0.7');
  assert.equal(await other.inputValue('#f-hardware-hbm_gbps'), '3350', 'untouched preset values still shown');
  await close(other);
  await close(page);
});

test('schedule=gpipe changes memory and time to the CLI values', async () => {
  const page = await open(env);
  await fillPlan70b(page);
  const scenario = plan70b();
  const oneF = cliReport(scenario);
  await expectStages(page, oneF);
  await openMore(page, 'parallel');
  await page.selectOption('#f-parallel-schedule', 'gpipe');
  scenario.parallel.schedule = 'gpipe';
  const gpipe = cliReport(scenario);
  assert.notEqual(gpipe.memory.per_device.total, oneF.memory.per_device.total);
  await expectStages(page, gpipe);
  await expectTime(page, gpipe);
  assert.match(await page.textContent('#gantt-legend'), /gpipe/);
  assert.equal(await page.locator('#gantt rect.block').count(), gpipe.pipeline.timeline_events);
  await close(page);
});

test('time section: dark theme, a phone screen, a long schedule and embed mode', async () => {
  // A v=1 link, written before the defaults changed, opens as it was written.
  const link = `#v=1&model.preset=llama-3.1-70b&training.global_batch=16&parallel.dp=2&parallel.tp=8&parallel.pp=4`;
  const old = structuredClone(V1_DEFAULTS);
  old.model.preset = 'llama-3.1-70b';
  Object.assign(old.parallel, { tp: 8, pp: 4, dp: 2 });
  old.training.global_batch = 16;
  const report = cliReport(old);
  const dark = await open(env, link, { colorScheme: 'dark' });
  await expectTime(dark, report);
  await dark.locator('#time-section').screenshot({ path: join(shots, 'time-dark.png') });
  await close(dark);

  const phone = await open(env, link, { viewport: { width: 390, height: 844 } });
  await expectTime(phone, report);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal page scroll on a phone (overflow ${overflow}px)`);
  await phone.locator('#time-section').screenshot({ path: join(shots, 'time-phone.png') });
  await close(phone);

  // More than 800 blocks, each thinner than a few pixels: runs of passes (one rect per run, in a forward
  // and a backward lane; tests/web/page-readable.test.mjs checks them against the timeline); past the
  // engine's limit, a message.
  const long = structuredClone(DEFAULTS);
  long.model.preset = 'llama-3.1-70b';
  Object.assign(long.parallel, { tp: 8, pp: 4 });
  long.training.global_batch = 256;
  const longReport = cliReport(long);
  assert.ok(longReport.pipeline.timeline_events > 800 && longReport.pipeline.timeline_complete);
  const page = await open(env, `#scenario=${encodeURIComponent(JSON.stringify(long))}`);
  await expectTime(page, longReport);
  assert.equal(await page.getAttribute('#gantt svg', 'data-blocks'), String(longReport.pipeline.timeline_events));
  assert.equal(await page.locator('#gantt rect.block').count(), 0);
  assert.equal(await page.getAttribute('#gantt svg', 'data-mode'), 'runs');
  assert.ok((await page.locator('#gantt rect.run.block-F').count()) >= 1 && (await page.locator('#gantt rect.run.block-B').count()) >= 1);
  await page.fill('#f-training-global_batch', '4096');
  long.training.global_batch = 4096;
  const huge = cliReport(long);
  assert.equal(huge.pipeline.timeline_complete, false);
  await expectMetric(page, 'time.step_seconds', huge.time.step_seconds);
  assert.match(await page.textContent('#gantt'), /too many blocks/);
  await close(page);

  const embed = await open(env, `?embed=1${link}`, { viewport: { width: 800, height: 600 } });
  await expectMetric(embed, 'time.step_seconds', report.time.step_seconds);
  for (const m of ['time.step_seconds', 'time.mfu', 'throughput.tokens_per_second'])
    assert.ok(await embed.isVisible(`[data-metric="${m}"]`), `${m} visible in embed mode`);
  for (const sel of ['#comm-table', '#time-table', '#gantt', '#roofline'])
    assert.equal(await embed.isVisible(sel), false, `${sel} hidden in embed mode`);
  // The embed has no Share block (page-embed.test.mjs); its Markdown is still written for the current plan.
  await embed.waitForFunction(() => document.querySelector('#markdown-output')?.value.includes('tokens/s'));
  assert.match(await embed.inputValue('#markdown-output'), /Step time \*\*[\d.]+ (s|ms)\*\*, [\d,]+ tokens\/s, MFU [\d.]+ %/);
  await close(embed);
});

test('the price per GPU-hour survives a change of device', async () => {
  const page = await open(env);
  await page.fill('#f-training-train_tokens', '1e12');
  await page.fill('#f-hardware-price_per_gpu_hour', '2');
  await page.selectOption('#f-hardware-preset', 'a100-sxm-80gb');
  const scenario = structuredClone(DEFAULTS);
  scenario.training.train_tokens = 1e12;
  scenario.hardware = { preset: 'a100-sxm-80gb', price_per_gpu_hour: 2 };
  const report = cliReport(scenario);
  await expectMetric(page, 'training_run.cost', report.training_run.cost);
  assert.equal(await page.inputValue('#f-hardware-price_per_gpu_hour'), '2');
  await close(page);
});

// ---- Memory over the step, the verdict and hypothetical times ----------------------------

const GPT2 = { framework: 'pytorch', model: { preset: 'gpt2' }, training: { seq_len: 1024, micro_batch: 8 } };
const TIGHT = { framework: 'pytorch', model: { preset: 'gpt2-xl' }, training: { seq_len: 1024, micro_batch: 8, train_tokens: 1e10 } };
const OOM = { framework: 'pytorch', model: { preset: 'llama-3.1-8b' }, training: { seq_len: 4096, micro_batch: 8 } };
const PHASE_WORDS = { step_start: 'Step start', forward_end: 'End of forward', loss_backward: 'Loss backward', layer_backward: 'Layer backward', optimizer_step: 'Optimizer step' };

// The timeline chart shows stage index `i` of the report: one column per moment in step order,
// every line's segment and every allocated label equal to the report's, the peak highlighted
// with reserved and total on top, and the same values in the table under the chart.
async function expectTimeline(page, report, i) {
  const stage = report.memory.stages[i];
  const base = `memory.stages.${i}`;
  await page.waitForFunction((s) => document.querySelector('#timeline-chart')?.dataset.stage === String(s), stage.stage, { timeout: 5000 });
  const shown = await page.$$eval('#timeline-chart [data-chart-metric]', (nodes) => Object.fromEntries(nodes.map((n) => [n.dataset.chartMetric, n.dataset.value])));
  const phases = await page.$$eval('#timeline-chart g.moment', (gs) => gs.map((g) => g.dataset.phase));
  assert.deepEqual(phases, stage.timeline.map((p) => p.phase), 'moments in step order');
  for (const [j, p] of stage.timeline.entries()) {
    assert.equal(shown[`${base}.timeline.${j}.allocated`], String(p.allocated), `${p.phase} allocated`);
    for (const [line, v] of Object.entries(p.lines))
      if (v > 0) assert.equal(shown[`${base}.timeline.${j}.lines.${line}`], String(v), `${p.phase} ${line}`);
      else assert.equal(shown[`${base}.timeline.${j}.lines.${line}`], undefined, `${p.phase} ${line} is zero: not drawn`);
    await expectMetric(page, `${base}.timeline.${j}.allocated`, p.allocated);
    for (const [line, v] of Object.entries(p.lines)) if (v > 0) await expectMetric(page, `${base}.timeline.${j}.lines.${line}`, v);
  }
  assert.equal(shown[`${base}.reserved`], String(stage.reserved));
  assert.equal(shown[`${base}.total`], String(stage.total));
  assert.equal(shown[`${base}.other_detail.fragmentation`], String(stage.other_detail.fragmentation));
  assert.equal(await page.getAttribute('#timeline-chart g.moment.peak', 'data-phase'), stage.peak_phase);
  // Phase names in words (on one line or two: a <tspan> holds the second).
  const labels = await page.$$eval('#timeline-chart g.moment text.phase', (ts) => ts.map((t) => [...t.childNodes].map((n) => n.textContent).join(' ')));
  assert.deepEqual(labels, stage.timeline.map((p) => PHASE_WORDS[p.phase]));
  const peak = stage.timeline.find((p) => p.phase === stage.peak_phase);
  assert.ok((await page.textContent('#timeline-peak')).includes(peak.what), 'the peak moment says what is alive');
  assert.equal(await page.locator('#timeline-table tbody tr.peak').getAttribute('data-phase'), stage.peak_phase);

  // Geometry: every column, the fragmentation on top of the peak and the capacity line share one
  // scale (pixels per byte) from one baseline.
  const geo = await page.evaluate(() => {
    const chart = document.querySelector('#timeline-chart');
    const cols = [...chart.querySelectorAll('g.moment')].map((g) => {
      const rects = [...g.querySelectorAll('rect.seg')].map((r) => ({ y: +r.getAttribute('y'), h: +r.getAttribute('height') }));
      return { bottom: Math.max(...rects.map((r) => r.y + r.h)), top: Math.min(...rects.map((r) => r.y)) };
    });
    const frag = chart.querySelector('rect.frag');
    const outside = chart.querySelector('rect.outside');
    return { cols, capY: +chart.querySelector('line.capacity').getAttribute('y1'),
      frag: frag && { y: +frag.getAttribute('y'), h: +frag.getAttribute('height') },
      outside: outside && { y: +outside.getAttribute('y'), h: +outside.getAttribute('height') } };
  });
  const baseline = geo.cols[0].bottom;
  const scale = (baseline - geo.cols[0].top) / stage.timeline[0].allocated;
  const near = (a, b, what) => assert.ok(Math.abs(a - b) < 0.6, `${what}: ${a} vs ${b}`);
  for (const [j, p] of stage.timeline.entries()) {
    near(geo.cols[j].bottom, baseline, `${p.phase} baseline`);
    near(baseline - geo.cols[j].top, p.allocated * scale, `${p.phase} height`);
  }
  near(baseline - geo.capY, report.memory.capacity * scale, 'capacity line');
  near(baseline - geo.frag.y, stage.reserved * scale, 'reserved at the peak');
  near(baseline - geo.outside.y, stage.total * scale, 'total at the peak');
}

test('memory over the step, pp=1: the timeline chart and its table equal the CLI', async () => {
  const report = cliReport(GPT2);
  assert.equal(report.memory.stages.length, 1);
  assert.ok(report.memory.stages[0].timeline.length >= 4);
  const page = await open(env, link(GPT2));
  await expectStages(page, report);
  await expectTimeline(page, report, 0);
  assert.equal(await page.isVisible('#timeline-picker'), false, 'no stage picker with one stage');
  assert.equal(await page.isVisible('#timeline-chart'), true);
  // The unit follows the page's.
  await page.selectOption('#unit', 'GB');
  await page.waitForFunction(() => document.querySelector('#timeline-chart .tick:last-of-type')?.textContent === 'GB');
  await expectTimeline(page, report, 0);
  await page.selectOption('#unit', 'GiB');
  await page.click('#timeline-section details.as-table summary');
  await page.locator('#timeline-section').screenshot({ path: join(shots, 'memory-timeline.png') });
  await close(page);
});

test('memory over the step, pp=4: the most loaded stage first, a picker for the others, values equal the CLI', async () => {
  const page = await open(env);
  await fillPlan70b(page);
  const report = cliReport(plan70b());
  const stages = report.memory.stages;
  assert.equal(stages.length, 4);
  await expectStages(page, report);
  const peakIndex = stages.findIndex((s) => s.stage === report.memory.per_device.stage);
  await expectTimeline(page, report, peakIndex);
  assert.equal(await page.isVisible('#timeline-picker'), true);
  assert.equal(await page.locator('#timeline-stage option').count(), 4);
  assert.equal(await page.inputValue('#timeline-stage'), String(peakIndex));
  assert.match(await page.textContent(`#timeline-stage option[value="${peakIndex}"]`), /most loaded/);
  // The last stage holds the loss: one more moment (loss backward), and its own peak.
  const last = stages.length - 1;
  assert.ok(stages[last].timeline.some((p) => p.phase === 'loss_backward'));
  assert.ok(!stages[0].timeline.some((p) => p.phase === 'loss_backward'));
  await page.selectOption('#timeline-stage', String(last));
  await expectTimeline(page, report, last);
  await page.locator('#timeline-section').screenshot({ path: join(shots, 'memory-timeline-pp4.png') });
  // The pick survives an unrelated change (a new report) and the charts follow it.
  await page.selectOption('#f-training-recompute', 'full');
  const full = cliReport({ ...plan70b(), training: { ...plan70b().training, recompute: 'full' } });
  await expectStages(page, full);
  await expectTimeline(page, full, last);
  assert.equal(await page.inputValue('#timeline-stage'), String(last));
  await close(page);
});

// The memory headline's verdict, and every time figure marked as hypothetical unless it fits.
async function expectVerdict(page, report) {
  const v = report.memory.verdict;
  const words = { fits: 'Fits', tight: 'Tight', does_not_fit: 'Does not fit' }[v.verdict];
  await expectMetric(page, 'memory.verdict.verdict', v.verdict);
  await expectMetric(page, 'memory.verdict.margin', v.margin);
  assert.equal(await page.textContent('[data-metric="memory.verdict.verdict"]'), words);
  assert.equal(await page.getAttribute('#headline .verdict', 'data-verdict'), v.verdict);
  const reason = await page.textContent('#headline .reason');
  assert.equal(reason.toLowerCase(), `${v.reason}.`.toLowerCase(), 'the engine’s reason, as a sentence');
  await expectMetric(page, 'memory.per_device.allocated', report.memory.per_device.allocated);
  await expectMetric(page, 'memory.per_device.reserved', report.memory.per_device.reserved);
  const hypothetical = v.verdict !== 'fits';
  assert.equal(await page.evaluate(() => document.querySelector('#time-section').classList.contains('hypothetical')), hypothetical);
  assert.equal(await page.isVisible('#time-headline .time-main .hypo-label'), hypothetical, 'the step-time line says "if it fitted"');
  assert.equal(await page.isVisible('#time-headline .hypo-note'), hypothetical);
  if (hypothetical) {
    assert.equal((await page.textContent('#time-headline .time-main .hypo-label')).trim(), 'If it fitted');
    assert.match(await page.textContent('#time-headline .hypo-note'), /Hypothetical/);
    // Each figure looks different from a plain result (muted and striped).
    const style = await page.$eval('[data-metric="time.step_seconds"]', (n) => ({ bg: getComputedStyle(n).backgroundImage, color: getComputedStyle(n).color }));
    assert.match(style.bg, /repeating-linear-gradient/);
  } else {
    assert.equal(await page.locator('.hypo-label').count(), 0);
  }
}

test('the verdict: fits, tight and does not fit, with the engine’s reason; times marked hypothetical unless it fits', async () => {
  for (const [name, scenario, expected] of [['fits', GPT2, 'fits'], ['tight', TIGHT, 'tight'], ['does-not-fit', OOM, 'does_not_fit']]) {
    const report = cliReport(scenario);
    assert.equal(report.memory.verdict.verdict, expected, `${name} scenario`);
    assert.equal(report.memory.fits, expected === 'fits');
    const page = await open(env, link(scenario));
    await expectStages(page, report);
    await expectVerdict(page, report);
    await expectTime(page, report);
    if (report.training_run) for (const f of ['days', 'gpu_hours']) await expectMetric(page, `training_run.${f}`, report.training_run[f]);
    if (expected === 'tight') {
      assert.ok(report.training_run, 'the tight scenario prices a run');
      assert.equal(await page.locator('#time-headline .hypo-label').count(), 3, 'step line, HFU line and the training run');
      assert.match(await page.textContent('#time-table tfoot'), /if it fitted/);
    }
    await expectTimeline(page, report, 0);
    const md = await page.inputValue('#markdown-output');
    const words = { fits: 'Fits', tight: 'Tight', does_not_fit: 'Does not fit' }[expected];
    assert.ok(md.includes(`: **${words}**`), md);
    assert.ok(md.includes(report.memory.verdict.reason.slice(1)), 'the reason in the Markdown (as a sentence: capital first letter)');
    if (expected === 'fits') assert.match(md, /^Step time \*\*[\d.]+ (s|ms)\*\*/m);
    else {
      assert.match(md, /^_Hypothetical, if it fitted[^_]*_: step time [\d.]+ (s|ms), [\d,]+ tokens\/s, MFU [\d.]+ %/m);
      assert.doesNotMatch(md, /Step time \*\*/, 'no plain step time');
    }
    assert.match(md, /Memory over the step, stage \d+/);
    await page.locator('#results').screenshot({ path: join(shots, `verdict-${name}.png`) });
    await close(page);
  }
});

test('embed mode marks the times of a plan that does not fit as hypothetical, on the page and in the Markdown', async () => {
  const report = cliReport(OOM);
  const page = await open(env, `?embed=1${link(OOM)}`, { viewport: { width: 800, height: 700 } });
  await expectStages(page, report);
  await expectVerdict(page, report);
  assert.equal(await page.isVisible('[data-metric="memory.verdict.verdict"]'), true);
  assert.equal(await page.isVisible('#headline .reason'), true);
  for (const m of ['time.step_seconds', 'time.mfu', 'throughput.tokens_per_second'])
    assert.ok(await page.isVisible(`[data-metric="${m}"]`), `${m} visible in embed mode`);
  assert.equal(await page.isVisible('#timeline-section'), false, 'the timeline is left out of the compact view');
  await page.waitForFunction(() => document.querySelector('#markdown-output')?.value.includes('Hypothetical'));
  assert.match(await page.inputValue('#markdown-output'), /\*\*Does not fit\*\*/);
  await page.screenshot({ path: join(shots, 'embed-does-not-fit.png'), fullPage: true });
  await close(page);
});

// ---- Implementation fields (framework-dependent defaults, read from the report's scenario echo) --

// The blank option of a select: what it says the engine's default is.
const defaultOption = (page, id) => page.textContent(`#${id} option[data-default]`);

async function expectDefaultOption(page, id, text) {
  try {
    await page.waitForFunction(([i, t]) => document.querySelector(`#${i} option[data-default]`)?.textContent === t, [id, text], { timeout: 5000 });
  } catch {
    assert.fail(`${id}: shows "${await defaultOption(page, id)}", expected "${text}"`);
  }
}

async function shareLink(page) {
  await page.click('#copy-link');
  await page.waitForFunction(() => document.querySelector('#share-url')?.value.includes('#v=2'));
  return page.inputValue('#share-url');
}

const optimizerStep = (report) => report.memory.stages[0].timeline.find((p) => p.phase === 'optimizer_step');

test('implementation defaults follow the framework; optimizer_impl=fused changes the optimizer-step transient to the CLI values', async () => {
  const page = await open(env);
  // Megatron's defaults first, as the engine resolved them.
  await expectDefaultOption(page, 'f-implementation-model_code', 'framework default (megatron)');
  await expectDefaultOption(page, 'f-implementation-optimizer_impl', 'framework default (fused)');
  await expectDefaultOption(page, 'f-implementation-tf32', 'framework default (true)');
  await expectDefaultOption(page, 'f-implementation-allocator', 'default (caching)');
  await expectDefaultOption(page, 'f-model-hidden_act', 'default (silu)');
  await expectDefaultOption(page, 'f-model-fused_qkv', 'framework default (true)');
  await openMore(page, 'implementation');
  assert.equal(await page.getAttribute('#f-implementation-host_forward_us', 'placeholder'), '38.5');
  assert.equal(await page.getAttribute('#f-implementation-host_backward_us', 'placeholder'), '32');
  // The tooltips are the field help, a chunk fetched once the reader reaches the form (a pointer over it here).
  await page.hover('#f-implementation-model_code');
  await page.waitForSelector('#scenario-form[data-help="loaded"]', { state: 'attached' });
  assert.match(await page.getAttribute('#f-implementation-model_code', 'title'), /huggingface: transformers modules run op by op/);
  assert.equal(await page.getAttribute('label[for="f-implementation-model_code"]', 'title'), await page.getAttribute('#f-implementation-model_code', 'title'));

  await page.selectOption('#f-framework', 'pytorch');
  await page.fill('#f-training-seq_len', '1024');
  await page.fill('#f-training-micro_batch', '8');
  await page.selectOption('#f-model-preset', 'gpt2');
  const scenario = { ...structuredClone(DEFAULTS), framework: 'pytorch', model: { preset: 'gpt2' }, training: { ...DEFAULTS.training, seq_len: 1024, micro_batch: 8 } };
  const foreach = cliReport(scenario);
  assert.equal(foreach.scenario.implementation.model_code, 'huggingface');
  assert.equal(foreach.scenario.implementation.optimizer_impl, 'foreach');
  await expectStages(page, foreach);
  await expectDefaultOption(page, 'f-implementation-model_code', 'framework default (huggingface)');
  await expectDefaultOption(page, 'f-implementation-optimizer_impl', 'framework default (foreach)');
  await expectDefaultOption(page, 'f-implementation-tf32', 'framework default (false)');
  // The preset's model fields are shown as its values; the model code's default resolves them.
  assert.equal(await page.inputValue('#f-model-hidden_act'), 'gelu_new');
  assert.equal(await page.inputValue('#f-model-fused_qkv'), 'true');
  for (const id of ['model_code', 'optimizer_impl', 'tf32', 'allocator', 'host_forward_us', 'host_backward_us'])
    assert.equal(await page.inputValue(`#f-implementation-${id}`), '', `${id} left at its default`);
  let url = await shareLink(page);
  assert.ok(url.includes('framework=pytorch'), url);
  assert.ok(!url.includes('implementation.') && !url.includes('hidden_act') && !url.includes('fused_qkv'), `defaults are not in the link: ${url}`);

  await page.selectOption('#f-implementation-optimizer_impl', 'fused');
  scenario.implementation = { optimizer_impl: 'fused' };
  const fused = cliReport(scenario);
  assert.ok(optimizerStep(foreach).lines.transient > 0, 'foreach keeps a temporary at the step');
  assert.equal(optimizerStep(fused).lines.transient, 0, 'the fused kernel keeps none');
  assert.ok(optimizerStep(fused).allocated < optimizerStep(foreach).allocated);
  await expectStages(page, fused);
  await expectTimeline(page, fused, 0);
  await expectTime(page, fused);
  assert.notEqual(fused.time.breakdown.optimizer_step, foreach.time.breakdown.optimizer_step);
  url = await shareLink(page);
  assert.ok(url.includes('implementation.optimizer_impl=fused'), url);
  assert.ok(!url.includes('implementation.model_code') && !url.includes('implementation.tf32'), url);

  // Back to the default: out of the scenario and the link again.
  await page.selectOption('#f-implementation-optimizer_impl', '');
  await expectStages(page, foreach); // the new answer first (the timeline helper reads the chart at once), as above
  await expectTimeline(page, foreach, 0);
  url = await shareLink(page);
  assert.ok(!url.includes('implementation.'), url);
  await page.locator('#section-implementation').screenshot({ path: join(shots, 'implementation-fields.png') });
  await close(page);
});

test('tf32 on changes the step time of an fp32 run to the CLI value', async () => {
  const FP32 = { framework: 'pytorch', model: { preset: 'gpt2' }, training: { seq_len: 1024, micro_batch: 8, dtype: 'fp32' } };
  const off = cliReport(FP32);
  assert.equal(off.scenario.implementation.tf32, false);
  const page = await open(env, link(FP32));
  await expectTime(page, off);
  await expectDefaultOption(page, 'f-implementation-tf32', 'framework default (false)');
  await page.selectOption('#f-implementation-tf32', 'true');
  const on = cliReport({ ...FP32, implementation: { tf32: true } });
  assert.ok(on.time.step_seconds < off.time.step_seconds, 'TF32 is faster');
  await expectTime(page, on);
  await expectStages(page, on);
  assert.ok((await shareLink(page)).includes('implementation.tf32=true'));
  await close(page);
});

test('implementation and model-code fields round-trip through a share link and #scenario=', async () => {
  const page = await open(env);
  await page.selectOption('#f-framework', 'fsdp');
  await page.fill('#f-training-seq_len', '2048');
  await page.selectOption('#f-implementation-optimizer_impl', 'for_loop');
  await page.selectOption('#f-implementation-tf32', 'true');
  await page.selectOption('#f-implementation-allocator', 'expandable_segments');
  await openMore(page, 'implementation');
  await page.fill('#f-implementation-host_forward_us', '50');
  await openMore(page, 'model');
  await page.selectOption('#f-model-hidden_act', 'gelu_pytorch_tanh');
  await page.selectOption('#f-model-fused_qkv', 'true');
  const scenario = {
    ...structuredClone(DEFAULTS), framework: 'fsdp', training: { ...DEFAULTS.training, seq_len: 2048 },
    model: { preset: 'llama-3.1-8b', hidden_act: 'gelu_pytorch_tanh', fused_qkv: true },
    implementation: { optimizer_impl: 'for_loop', tf32: true, allocator: 'expandable_segments', host_forward_us: 50 },
  };
  const report = cliReport(scenario);
  assert.deepEqual(report.scenario.implementation,
    { model_code: 'huggingface', optimizer_impl: 'for_loop', tf32: true, allocator: 'expandable_segments', host_forward_us: 50, host_backward_us: 32 });
  assert.notEqual(report.time.step_seconds, cliReport({ ...scenario, model: { preset: 'llama-3.1-8b' } }).time.step_seconds,
    'the model fields change the step time');
  await expectStages(page, report);
  await expectTime(page, report);
  assert.ok(await page.locator('[data-field="model.hidden_act"]').evaluate((n) => n.classList.contains('is-override')));

  const url = await shareLink(page);
  for (const key of ['implementation.optimizer_impl=for_loop', 'implementation.tf32=true', 'implementation.allocator=expandable_segments',
    'implementation.host_forward_us=50', 'model.hidden_act=gelu_pytorch_tanh', 'model.fused_qkv=true'])
    assert.ok(url.includes(key), `${key} in ${url}`);
  for (const key of ['implementation.model_code', 'implementation.host_backward_us'])
    assert.ok(!url.includes(key), `${key} (left at its default) not in ${url}`);
  const before = await metrics(page);

  const other = await open(env, url.slice(env.server.url.length));
  await expectStages(other, report);
  await expectTime(other, report);
  assert.deepEqual(await metrics(other), before);
  const values = { 'implementation-model_code': '', 'implementation-optimizer_impl': 'for_loop', 'implementation-tf32': 'true',
    'implementation-allocator': 'expandable_segments', 'implementation-host_forward_us': '50', 'implementation-host_backward_us': '',
    'model-hidden_act': 'gelu_pytorch_tanh', 'model-fused_qkv': 'true' };
  for (const [id, value] of Object.entries(values)) assert.equal(await other.inputValue(`#f-${id}`), value, id);
  await expectDefaultOption(other, 'f-implementation-model_code', 'framework default (huggingface)');
  assert.equal(await shareLink(other), url, 'the reopened page writes the same link');
  await close(other);

  // An engine scenario with an implementation object opens with the same values.
  const fromScenario = await open(env, link(scenario));
  await expectStages(fromScenario, report);
  await expectTime(fromScenario, report);
  for (const [id, value] of Object.entries(values)) assert.equal(await fromScenario.inputValue(`#f-${id}`), value, id);
  await close(fromScenario);
  await close(page);
});

test('a GPT-2 config.json fills hidden_act and the fused QKV projection: the numbers equal the gpt2 preset', async () => {
  const page = await open(env);
  await page.selectOption('#f-framework', 'pytorch');
  await page.fill('#f-training-seq_len', '1024');
  const config = {
    architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', activation_function: 'gelu_new', n_ctx: 1024, n_embd: 768,
    n_head: 12, n_inner: null, n_layer: 12, n_positions: 1024, vocab_size: 50257, layer_norm_epsilon: 1e-5,
  };
  await page.fill('#hf-config', JSON.stringify(config));
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#f-model-layers')?.value === '12');
  assert.equal(await page.inputValue('#f-model-hidden_act'), 'gelu_new');
  assert.equal(await page.inputValue('#f-model-fused_qkv'), 'true');
  assert.doesNotMatch(await page.textContent('#hf-import-message'), /Not understood/);
  const report = cliReport({ ...structuredClone(DEFAULTS), framework: 'pytorch', model: { preset: 'gpt2' }, training: { ...DEFAULTS.training, seq_len: 1024 } });
  await expectStages(page, report);
  await expectTime(page, report);
  await close(page);
});

// ---- Hostile links and files (issue 8) ------------------------------------------------------

const MISTRAL_CONFIG = {
  architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336,
  num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000,
  max_position_embeddings: 32768, hidden_act: 'silu', rms_norm_eps: 1e-5, tie_word_embeddings: false, rope_theta: 10000.0,
};
// Keys an object literal cannot hold as plain data, at the top level and nested (JSON text: an
// object literal would set the prototype instead).
const HOSTILE_KEYS = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf'];
const hostileConfig = JSON.stringify(MISTRAL_CONFIG).replace(/}$/, `,
  "__proto__": {"polluted": "yes", "num_hidden_layers": 1},
  "constructor": {"prototype": {"polluted": "yes"}},
  "hasOwnProperty": 1, "toString": "x", "valueOf": {"polluted": "yes"},
  "rope_scaling": {"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "type": "linear"},
  "quantization_config": {"hasOwnProperty": 1, "__proto__": null}}`);

// Object.prototype's own properties (name and value), to compare before and after an import.
const protoSnapshot = (page) => page.evaluate(() => {
  const own = Object.getOwnPropertyNames(Object.prototype);
  window.__protoValues ??= own.map((k) => Object.getOwnPropertyDescriptor(Object.prototype, k).value);
  return {
    names: own.join(','),
    same: own.every((k, i) => Object.getOwnPropertyDescriptor(Object.prototype, k).value === window.__protoValues[i]),
    polluted: [({}).polluted, ({}).num_hidden_layers, Object.getPrototypeOf(Object.prototype)].map(String).join(','),
  };
});

async function expectMistralImported(page, label) {
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000', null, { timeout: 5000 })
    .catch(async () => assert.fail(`${label}: the config was not imported (message: "${await page.textContent('#hf-import-message')}")`));
  assert.equal(await page.inputValue('#f-model-preset'), '', `${label}: a Custom model`);
  assert.equal(await page.inputValue('#f-model-layers'), '32', `${label}: __proto__.num_hidden_layers is data, not a default`);
  assert.equal(await page.inputValue('#f-model-kv_heads'), '8');
  const message = await page.textContent('#hf-import-message');
  for (const key of HOSTILE_KEYS) assert.ok(message.includes(key), `${label}: "${key}" listed as not understood: ${message}`);
  const mistral = cliReport({ ...DEFAULTS, model: { preset: 'mistral-7b' } });
  await expectMetric(page, 'parameters.total', mistral.parameters.total);
}

test('a config.json with __proto__, constructor and hasOwnProperty keys imports as data, pasted or dropped', async () => {
  const page = await open(env);
  const before = await protoSnapshot(page);
  await page.fill('#hf-config', hostileConfig);
  await page.click('#hf-import');
  await expectMistralImported(page, 'pasted');
  assert.deepEqual(await protoSnapshot(page), before, 'Object.prototype unchanged');

  // Dropped as a file, onto a page back at a preset.
  await page.selectOption('#f-model-preset', 'llama-3.1-8b');
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '128256');
  await page.fill('#hf-config', '');
  const drop = await page.evaluateHandle((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], 'config.json', { type: 'application/json' }));
    return data;
  }, hostileConfig);
  await page.dispatchEvent('#hf-config', 'drop', { dataTransfer: drop });
  await expectMistralImported(page, 'dropped');
  assert.deepEqual(await protoSnapshot(page), before, 'Object.prototype unchanged');

  // Values whose own toString/valueOf are not functions (a naive String(value) throws): not understood.
  const odd = { ...MISTRAL_CONFIG };
  delete odd.hidden_act;
  const oddText = JSON.stringify(odd).replace(/}$/, ', "hidden_act": {"toString": 1, "valueOf": 1, "__proto__": {"x": 1}}}')
    .replace('"model_type":"mistral"', '"model_type":{"toString":1,"valueOf":1}');
  await page.selectOption('#f-model-preset', 'llama-3.1-8b');
  await page.fill('#hf-config', oddText);
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000', null, { timeout: 5000 });
  assert.match(await page.textContent('#hf-import-message'), /Not understood: .*hidden_act/);
  assert.deepEqual(await protoSnapshot(page), before, 'Object.prototype unchanged');
  await close(page);
});

test('a number beyond double range in a config.json is an error naming the key, never a silent default', async () => {
  const page = await open(env);
  // JSON.parse reads 1e400 as Infinity, which JSON.stringify would send to the engine as null (its default: MHA).
  const text = JSON.stringify({ ...MISTRAL_CONFIG, num_key_value_heads: 12345, hidden_size: 67890 })
    .replace('12345', '1e400').replace('67890', '-1e999');
  await page.fill('#hf-config', text);
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#hf-import-message')?.textContent.includes('finite'), null, { timeout: 5000 })
    .catch(() => {});
  const message = await page.textContent('#hf-import-message');
  assert.match(message, /num_key_value_heads: 1e400 is not a finite number/, message);
  assert.match(message, /hidden_size: -1e999 is not a finite number/, message);
  // Nothing applied: the model is still the preset (GQA with 8 KV heads), not a Custom MHA model.
  assert.equal(await page.inputValue('#f-model-preset'), 'llama-3.1-8b');
  assert.equal(await page.inputValue('#f-model-kv_heads'), '8');
  assert.equal(await page.inputValue('#f-model-vocab'), '128256');
  await expectStages(page, cliReport(DEFAULTS));
  await close(page);

  // The same in a #scenario= link: the error names the field, and the rest of the scenario loads without it.
  const linked = await open(env, '#scenario=' + encodeURIComponent('{"model": {"preset": "llama-3.1-8b", "kv_heads": 1e400}}'));
  assert.match(await linked.textContent('#link-error'), /model\.kv_heads: 1e400 is not a finite number/);
  await expectStages(linked, cliReport({ model: { preset: 'llama-3.1-8b' } }));
  await close(linked);
});

test('a config.json the engine cannot represent is refused with the reason at its key, and the model is kept', async () => {
  const page = await open(env);
  // T5 is an encoder-decoder, which the engine does not build: refused at its model_type (engine/io/hf_config.cpp),
  // never imported as something else.
  const t5 = { architectures: ['T5ForConditionalGeneration'], model_type: 't5', d_model: 512, num_layers: 6, num_heads: 8, vocab_size: 32128 };
  await page.fill('#hf-config', JSON.stringify(t5));
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#hf-import-message')?.textContent.includes('Nothing imported'), null, { timeout: 5000 })
    .catch(() => {});
  const message = await page.textContent('#hf-import-message');
  assert.match(message, /t5: an encoder-decoder model/, message);
  assert.equal(await page.inputValue('#f-model-preset'), 'llama-3.1-8b');
  assert.equal(await page.inputValue('#f-model-vocab'), '128256');
  // Mixtral imports as the MoE model it is: 8 experts, 2 per token, the CLI's memory.
  const mixtral = { ...MISTRAL_CONFIG, architectures: ['MixtralForCausalLM'], model_type: 'mixtral', num_local_experts: 8, num_experts_per_tok: 2 };
  await page.fill('#hf-config', JSON.stringify(mixtral));
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#f-model-experts')?.value === '8', null, { timeout: 5000 });
  assert.equal(await page.inputValue('#f-model-experts_per_token'), '2');
  await close(page);
});

// Markdown text back to what it shows: backslash escapes and the entities the page writes.
const unMarkdown = (text) => text.replace(/\\(.)/g, '$1').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
// Cell separators of a table line: the pipes not escaped by a backslash.
const pipes = (line) => (line.replace(/\\./g, '').match(/\|/g) || []).length;

test('a device name from a shared link is escaped in the Markdown: one line, no table break, no HTML', async () => {
  const name = 'x|y<script>alert(1)</script>\n| a | b |\r\n*b* _i_ `c` [l](javascript:alert(1)) ~s~ \\ &amp; <img src=x onerror=alert(2)>';
  for (const prefix of ['', '?embed=1']) {
    const page = await open(env, `${prefix}#v=1&hardware.name=${encodeURIComponent(name)}`);
    assert.ok((await page.textContent('#headline .plan')).includes('x|y<script>alert(1)</script>'), 'the page shows the name as text');
    assert.equal(await page.locator('#headline script, #headline img').count(), 0);
    if (!prefix) await page.click('#copy-markdown'); // the embed has no Share block; its Markdown is written all the same
    await page.waitForFunction(() => document.querySelector('#markdown-output')?.value.includes('| Stage'));
    const md = await page.inputValue('#markdown-output');
    assert.doesNotMatch(md, /<\/?script/i, md);
    assert.doesNotMatch(md, /<[a-z/!?]/i, 'no raw HTML');
    const lines = md.split('\n');
    assert.ok(lines[0].startsWith('**shardcalc**: '), lines[0]);
    assert.equal(pipes(lines[0]), 0, `the name breaks no table: ${lines[0]}`);
    assert.ok(unMarkdown(lines[0]).includes(name.replace(/\r?\n/g, ' ')), `the whole name, on one line: ${lines[0]}`);
    assert.ok(!/[^\\][*_`[\]~]/.test(lines[0].replace(/\*\*shardcalc\*\*/, '').replace(/\\\\/g, '')), 'no emphasis, code or link syntax');
    // Each table keeps one cell per column.
    let width = 0;
    for (const line of lines) {
      if (!line.startsWith('|')) width = 0;
      else if (!width) width = pipes(line);
      else assert.equal(pipes(line), width, `a table row with ${width - 1} cells: ${line}`);
    }
    assert.ok(!lines.some((l) => l.startsWith('| a |')), 'no injected row');
    await close(page);
  }
});

// The policy of a built page, as {directive: [sources]}.
async function builtPolicy(file) {
  const html = await readFile(join(dist, file), 'utf8');
  const content = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
  assert.ok(content, `${file} declares a Content-Security-Policy`);
  return { html, policy: Object.fromEntries(content.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([k, ...v]) => [k, v])) };
}

// Injects an inline script and an inline event handler; both must be blocked and reported.
async function expectInjectionBlocked(page) {
  const ran = await page.evaluate(async () => {
    const script = document.createElement('script');
    script.textContent = 'window.__injectedScript = true;';
    document.body.append(script);
    const div = document.createElement('div');
    div.setAttribute('onclick', 'window.__injectedHandler = true;');
    document.body.append(div);
    div.click();
    await new Promise((r) => setTimeout(r, 100));
    return { script: window.__injectedScript ?? false, handler: window.__injectedHandler ?? false };
  });
  assert.deepEqual(ran, { script: false, handler: false }, 'injected inline script and handler blocked');
  const violations = await cspViolations(page);
  // Reported once per policy that refuses them (the served page has the header and the meta).
  assert.ok(violations.some((v) => v.startsWith('script-src-elem ')) && violations.some((v) => v.startsWith('script-src-attr '))
    && violations.every((v) => /^script-src-(elem|attr) blocked inline/.test(v)), violations.join('; '));
  // Those two were expected: the browser logs each one as a console error.
  page.problems = page.problems.filter((p) => !/Content Security Policy/.test(p));
  await page.evaluate(() => { window.__cspViolations.length = 0; });
}

test('a strict Content-Security-Policy: no violation in normal use (page, embed view, single file); injected scripts are blocked', async () => {
  for (const file of ['index.html', 'shardcalc-standalone.html']) {
    const { html, policy } = await builtPolicy(file);
    for (const [directive, sources] of Object.entries({ 'default-src': ["'none'"], 'object-src': ["'none'"], 'base-uri': ["'none'"], 'form-action': ["'none'"], 'connect-src': ["'self'"] }))
      assert.deepEqual(policy[directive], sources, `${file}: ${directive}`);
    for (const directive of ['script-src', 'style-src', 'worker-src', 'img-src'])
      for (const source of policy[directive] || [])
        assert.ok(/^'(self|none|wasm-unsafe-eval|sha256-[A-Za-z0-9+/=]+)'$|^(blob|data):$/.test(source), `${file}: ${directive} ${source}`);
    assert.ok(policy['script-src'].includes("'wasm-unsafe-eval'"), `${file}: WebAssembly may compile`);
    // Inline scripts only where the policy lists their hash.
    for (const [, attrs, body] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
      if (/\ssrc=/.test(attrs)) continue;
      const hash = `'sha256-${createHash('sha256').update(body).digest('base64')}'`;
      assert.ok(policy['script-src'].includes(hash), `${file}: an inline script without its hash in script-src`);
    }
  }
  // The hosted page under normal use.
  const page = await open(env);
  await page.selectOption('#f-model-preset', 'llama-3.1-70b');
  await page.fill('#f-parallel-tp', '8');
  await page.fill('#f-parallel-pp', '4');
  await page.selectOption('#unit', 'GB');
  await page.click('#copy-link');
  await page.click('#copy-markdown');
  await page.fill('#hf-config', JSON.stringify(MISTRAL_CONFIG));
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000');
  await page.waitForSelector('#status[data-state="ready"]');
  await page.locator('#module-table').scrollIntoViewIfNeeded();
  assert.deepEqual(await cspViolations(page), []);
  await expectInjectionBlocked(page);
  await close(page);
  // The embed view.
  const embed = await open(env, `?embed=1${link({ model: { preset: 'llama-2-13b' }, parallel: { tp: 2, pp: 2 } })}`);
  await expectInjectionBlocked(embed);
  await close(embed);
  // The single file, from file://.
  const single = await open(env, '', { base: pathToFileURL(join(dist, 'shardcalc-standalone.html')).href });
  await single.fill('#f-parallel-tp', '2');
  await expectStages(single, cliReport({ ...structuredClone(DEFAULTS), parallel: { ...DEFAULTS.parallel, tp: 2 } }));
  await single.fill('#hf-config', JSON.stringify(MISTRAL_CONFIG));
  await single.click('#hf-import');
  await single.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000');
  await expectInjectionBlocked(single);
  await close(single);
});

test('scripts/serve.py (scripts/run.sh) sends each page\'s policy as a header, and the site\'s with the worker', async () => {
  const child = spawn('python3', [join(root, 'scripts', 'serve.py'), '0', dist], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const base = await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => { const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(String(d)); if (m) resolve(m[0]); });
      child.on('exit', (code) => reject(new Error(`serve.py exited with ${code}`)));
    });
    const policy = async (file) => /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(await readFile(join(dist, file), 'utf8'))[1];
    for (const [path, file] of [['', 'index.html'], ['?embed=1', 'index.html'], ['js/engine-worker.js', 'index.html'],
      ['engine/shardcalc.mjs', 'index.html'], ['shardcalc-standalone.html', 'shardcalc-standalone.html']]) {
      const res = await fetch(base + path);
      assert.equal(res.status, 200, path);
      await res.arrayBuffer();
      assert.equal(res.headers.get('content-security-policy'), await policy(file), `${path || '/'}: the policy header`);
    }
  } finally {
    child.kill();
  }
});

test('a 2 MB link fragment is refused with a message, the defaults load and the page stays interactive', async () => {
  const fill = 2_000_000; // 2 MB: just under Chromium's URL limit (2 MiB)
  const page = await open(env, `#v=1&hardware.name=${'a'.repeat(fill)}`);
  await page.waitForFunction(() => {
    const banner = document.querySelector('#link-error');
    return !banner.hidden && /too long/.test(banner.textContent);
  }, null, { timeout: 10000 }).catch(async () => assert.fail(`no message; the banner says "${(await page.textContent('#link-error')).slice(0, 200)}"`));
  const message = await page.textContent('#link-error');
  assert.ok(message.length < 300, `a short message: ${message.slice(0, 300)}`);
  assert.match(message, /65,536/);
  await expectStages(page, cliReport(DEFAULTS));
  // Interactive: an edit is handled and its result shown within 2 s, on the page's own clock.
  const editMs = await page.evaluate(() => new Promise((resolve) => {
    const t0 = performance.now();
    const input = document.querySelector('#f-parallel-tp');
    input.value = '2';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const poll = () => (document.querySelector('[data-metric="scenario.parallel.tp"]')?.dataset.value === '2'
      ? resolve(performance.now() - t0) : setTimeout(poll, 5));
    poll();
  }));
  assert.ok(editMs < 2000, `an edit took ${editMs.toFixed(0)} ms`);
  await close(page);

  // The same link typed into an open page: the message within 2 s of the hashchange event (the
  // browser's own work on a 2 MB URL before that is not the page's).
  const open2 = await open(env);
  const { handled, total } = await open2.evaluate((n) => new Promise((resolve) => {
    const t0 = performance.now();
    let event = 0;
    window.addEventListener('hashchange', (e) => { event = e.timeStamp; });
    window.location.hash = `#scenario=${encodeURIComponent(JSON.stringify({ name: 'a'.repeat(n) }))}`;
    const poll = () => (event && /too long/.test(document.querySelector('#link-error').textContent)
      ? resolve({ handled: performance.now() - event, total: performance.now() - t0 }) : setTimeout(poll, 5));
    poll();
  }), fill);
  assert.ok(handled < 2000, `the message took ${handled.toFixed(0)} ms after the hashchange (${total.toFixed(0)} ms in all)`);
  await expectStages(open2, cliReport(DEFAULTS));
  await close(open2);

  // Below the limit a long link still loads.
  const long = await open(env, `#v=1&hardware.name=${'b'.repeat(60000)}`);
  assert.equal(await long.isVisible('#link-error'), false);
  assert.ok((await long.textContent('#headline .plan')).includes('b'.repeat(60000)));
  await close(long);
});

test('the link error banner can be dismissed, and a successful edit clears it', async () => {
  const page = await open(env, '#v=1&parallel.tp=eight');
  assert.equal(await page.isVisible('#link-error'), true);
  await page.click('#link-error-dismiss', { timeout: 3000 });
  assert.equal(await page.isVisible('#link-error'), false);
  await close(page);

  const edited = await open(env, '#v=1&parallel.tp=eight');
  await edited.fill('#f-parallel-tp', '3'); // rejected by the engine: the link message stays
  await edited.waitForSelector('#status[data-state="error"]');
  assert.equal(await edited.isVisible('#link-error'), true);
  await edited.fill('#f-parallel-tp', '2');
  await edited.waitForSelector('#status[data-state="ready"]');
  await edited.waitForFunction(() => document.querySelector('#link-error').hidden, null, { timeout: 3000 });
  await close(edited);
});

// The search panel's code fills its fields from the form when it arrives: a test types only after that, or the two
// writes race (a typed "64" and the panel's "64" once made "6464").
async function searchPanelReady(page) {
  await page.locator('#search-section').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('#s-devices').value !== '' && document.querySelector('#s-batch').value !== '');
}

test('Find a plan: the engine ranks plans in the worker; a row loads into the form; the search is in the link', async () => {
  const page = await open(env);
  await searchPanelReady(page);
  await page.fill('#s-devices', '8');
  await page.fill('#s-batch', '64');
  await page.click('#s-run');
  await page.waitForSelector('#s-table tbody tr');
  const status = await page.textContent('#s-status');
  assert.match(status, /plans on 8 devices: [\d,]+ fit/);
  // The first row is what the CLI finds for the same search.
  const search = { devices: 8, global_batch: 64, rank_by: 'step_time', question: 'best_plan', frameworks: ['megatron'],
    tp_within_node: true, memory_margin: 0, top: 20 };
  const found = JSON.parse(execFileSync(cli, ['search', '--format', 'json', '-'], { input: JSON.stringify({ ...DEFAULTS, search }) }));
  const first = found.plans[0];
  const cells = await page.locator('#s-table tbody tr').first().locator('td').allTextContents();
  assert.equal(cells[1], first.framework);
  assert.equal(cells[7], duration(first.time.step_seconds));
  assert.equal(await page.locator('#s-pareto svg .pareto-dot').count(), found.pareto.length);
  // Load: the form takes the plan, and the estimate is that plan's.
  await page.locator('#s-table tbody tr').first().locator('button.load-plan').click();
  await page.waitForFunction((tp) => document.querySelector('#f-parallel-tp').value === String(tp), first.parallel.tp);
  assert.equal(await page.inputValue('#f-parallel-dp'), String(first.parallel.dp));
  // The link carries the search; opened elsewhere it runs again.
  const url = new URL(page.url());
  assert.match(decodeURIComponent(url.hash), /search=\{.*"devices":8/);
  const again = await open(env, url.hash);
  await again.waitForSelector('#s-table tbody tr');
  assert.equal(await again.inputValue('#s-devices'), '8');
  await close(again);
  await page.screenshot({ path: join(shots, 'search.png'), fullPage: false });
  await close(page);
});

test('Find a plan: a long search shows progress and can be cancelled; bad settings name the field', async () => {
  const page = await open(env);
  await searchPanelReady(page);
  await page.fill('#s-devices', '8-1024');
  await page.fill('#s-batch', '1024');
  for (const f of ['deepspeed', 'fsdp']) await page.check(`#s-fw-${f}`);
  await page.check('#s-offload');
  await page.click('#s-run');
  await page.waitForFunction(() => Number(document.querySelector('#s-progress').value) > 0);
  await page.click('#s-cancel');
  await page.waitForFunction(() => document.querySelector('#s-status').textContent === 'Search cancelled.');
  assert.equal(await page.isVisible('#s-progress'), false);
  await page.fill('#s-devices', 'many');
  await page.click('#s-run');
  await page.waitForFunction(() => /could not run/.test(document.querySelector('#s-status').textContent));
  assert.match(await page.textContent('#s-status'), /\/search\/devices/);
  await close(page);
});

test('the answer stays in view while the plan is edited, on desktop and phone; time marked "if it fitted" when it does not fit', async () => {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    const page = await open(env, '', { viewport });
    const report = cliReport(DEFAULTS);
    assert.equal(report.memory.verdict.verdict, 'fits', 'the page opens on a plan that fits');
    for (const framework of ['deepspeed', 'fsdp', 'pytorch'])
      assert.equal(cliReport({ ...DEFAULTS, framework }).memory.verdict.verdict, 'fits', `and still fits under ${framework}`);
    await page.waitForSelector('#summary:not([hidden])');
    assert.equal(await page.getAttribute('#summary .summary-verdict', 'data-verdict'), 'fits');
    // Editing a field far down the form: the summary is on screen and shows the engine's figures.
    await page.locator('#f-parallel-tp').scrollIntoViewIfNeeded();
    await page.fill('#f-parallel-tp', '2');
    const scenario = structuredClone(DEFAULTS);
    scenario.parallel.tp = 2;
    const two = cliReport(scenario);
    await page.waitForFunction((v) => document.querySelector('#summary [data-summary-metric="time.step_seconds"]')?.dataset.value === String(v),
      two.time.step_seconds);
    const box = await page.locator('#summary').boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= viewport.height, `summary in view at ${viewport.width}px: ${JSON.stringify(box)}`);
    assert.equal(await page.getAttribute('#summary [data-summary-metric="memory.per_device.total"]', 'data-value'), String(two.memory.per_device.total));
    assert.equal(await page.getAttribute('#summary [data-summary-metric="time.mfu"]', 'data-value'), String(two.time.mfu));
    const verdict = await page.getAttribute('#summary .summary-verdict', 'data-verdict');
    assert.equal(verdict, two.memory.verdict.verdict === 'fits' ? 'fits' : verdict);
    assert.equal(await page.locator('#summary .summary-hypo').count(), two.memory.verdict.verdict === 'fits' ? 0 : 1);
    await page.screenshot({ path: join(shots, `summary-${viewport.width}.png`) });
    // The table of contents reaches the sections.
    await page.click('.toc a[href="#time-title"]');
    assert.ok(report.time.step_seconds > 0);
    await close(page);
  }
});

test('an implausible MFU is flagged with its reason, in the time section and the summary', async () => {
  // A device described as ideal (every efficiency 1, free links and launches): an MFU no run reached.
  const hot = { framework: 'megatron', model: { preset: 'gpt3-175b' }, training: { seq_len: 2048, global_batch: 8192, micro_batch: 2 },
    parallel: { dp: 8, tp: 8, pp: 8 },
    hardware: { preset: 'a100-sxm-80gb', memory_gib: 1000, matmul_efficiency: 1, attention_efficiency: 1, intra_node_gbps: 1e6,
      inter_node_gbps: 1e6, intra_node_latency_us: 0, inter_node_latency_us: 0, kernel_launch_us: 0 } };
  const report = cliReport(hot);
  assert.ok(report.time.efficiency_warning);
  const page = await open(env, `#scenario=${encodeURIComponent(JSON.stringify(hot))}`);
  await page.waitForSelector('#time-headline .efficiency-warning');
  assert.match(await page.textContent('#time-headline .efficiency-warning'), /above any published training run/);
  assert.equal(await page.locator('#summary .summary-warning').count(), 1);
  await page.screenshot({ path: join(shots, 'implausible-mfu.png') });
  await close(page);
});
