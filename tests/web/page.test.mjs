// The page in real Chromium (Debian's, driven by playwright-core): every number must be the
// CLI's, links must round-trip, and nothing may reach another origin. Screenshots go to
// artifacts/screenshots/. Needs web/dist (scripts/build-web.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { serve } from './server.mjs';
import { launch } from './browser.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = join(root, 'web', 'dist');
const shots = join(root, 'artifacts', 'screenshots');
const cli = join(root, 'build', 'engine', 'shardcalc');

// The page's defaults (web/src/js/state.js) as an engine scenario.
const DEFAULTS = {
  framework: 'megatron',
  model: { preset: 'llama-3.1-8b' },
  training: { seq_len: 4096, micro_batch: 1 },
  parallel: { dp: 1, tp: 1, pp: 1 },
  hardware: { preset: 'h100-sxm-80gb' },
};

const cliReport = (scenario) =>
  JSON.parse(execFileSync(cli, ['estimate', '--format', 'json', '-'], { input: JSON.stringify(scenario) }));

let server;
let browser;

before(async () => {
  await mkdir(shots, { recursive: true });
  server = await serve(dist);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// A fresh page that fails the test on console errors, page errors or foreign requests.
async function open(path = '', options = {}) {
  const context = await browser.newContext({ colorScheme: options.colorScheme || 'light', viewport: options.viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => {});
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    const url = req.url();
    const base = options.base || server.url;
    if (!url.startsWith(base) && !url.startsWith('blob:') && !url.startsWith('data:')) problems.push(`foreign request: ${url}`);
  });
  await page.goto((options.base || server.url) + path);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 15000 });
  page.problems = problems;
  return page;
}

async function close(page) {
  assert.deepEqual(page.problems, [], 'console errors or foreign requests');
  await page.context().close();
}

// Waits until the page shows the given raw value for a report field.
async function expectMetric(page, metric, value) {
  try {
    await page.waitForFunction(
      ([m, v]) => document.querySelector(`[data-metric="${m}"]`)?.dataset.value === String(v),
      [metric, value],
      { timeout: 5000 },
    );
  } catch {
    const shown = await page.getAttribute(`[data-metric="${metric}"]`, 'data-value').catch(() => 'absent');
    assert.fail(`${metric}: page shows ${shown}, CLI says ${value}`);
  }
}

async function metrics(page) {
  return page.$$eval('[data-metric]', (nodes) => Object.fromEntries(nodes.map((n) => [n.dataset.metric, n.dataset.value])));
}

async function expectStages(page, report) {
  await expectMetric(page, 'memory.per_device.total', report.memory.per_device.total);
  for (const [i, stage] of report.memory.stages.entries())
    for (const field of ['weights', 'gradients', 'optimizer', 'activations', 'other', 'total'])
      await expectMetric(page, `memory.stages.${i}.${field}`, stage[field]);
  await expectMetric(page, 'parameters.total', report.parameters.total);
}

test('defaults load and match the CLI', async () => {
  const page = await open();
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
  const page = await open();
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
  const page = await open();
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
  assert.ok(link.startsWith(server.url), link);
  assert.ok(link.length < 200, `compact link: ${link}`);
  const before = await metrics(page);
  const shownText = await page.textContent('#stage-table');

  const other = await open(link.slice(server.url.length));
  await expectStages(other, cliReport(scenario));
  assert.deepEqual(await metrics(other), before);
  assert.equal(await other.textContent('#stage-table'), shownText, 'same unit and formatting');
  assert.equal(await other.inputValue('#f-parallel-tp'), '8');
  await close(other);
  await close(page);
});

test('#scenario= links take the engine public field names', async () => {
  const scenario = JSON.parse(await readFile(join(root, 'examples', 'llama-3.1-70b-h100.json'), 'utf8'));
  const page = await open(`#scenario=${encodeURIComponent(JSON.stringify(scenario))}`);
  await expectStages(page, cliReport(scenario));
  await close(page);
});

test('embed mode: compact results, iframe snippet and Markdown', async () => {
  const scenario = { model: { preset: 'llama-2-13b' }, parallel: { tp: 2, pp: 2 }, training: { seq_len: 4096 } };
  const page = await open(`?embed=1#scenario=${encodeURIComponent(JSON.stringify(scenario))}`, { viewport: { width: 800, height: 600 } });
  assert.ok(await page.evaluate(() => document.body.classList.contains('embed')));
  await expectStages(page, cliReport(scenario));
  assert.equal(await page.isVisible('#f-parallel-tp'), false, 'no form in embed mode');
  await page.click('#copy-iframe');
  await page.waitForFunction(() => document.querySelector('#iframe-snippet')?.value.includes('<iframe'));
  assert.match(await page.inputValue('#iframe-snippet'), /embed=1/);
  await page.click('#copy-markdown');
  await page.waitForFunction(() => document.querySelector('#markdown-output')?.value.includes('|'));
  const md = await page.inputValue('#markdown-output');
  assert.match(md, /\| *[Ss]tage/);
  assert.match(md, /GiB|GB/);
  await page.screenshot({ path: join(shots, 'embed.png') });
  await close(page);
});

test('the single-file build works opened from file://', async () => {
  const file = pathToFileURL(join(dist, 'shardcalc-standalone.html')).href;
  const page = await open('', { base: file });
  await expectStages(page, cliReport(DEFAULTS));
  await page.fill('#f-parallel-tp', '2');
  const scenario = structuredClone(DEFAULTS);
  scenario.parallel.tp = 2;
  await expectStages(page, cliReport(scenario));
  await page.screenshot({ path: join(shots, 'standalone-file.png') });
  await close(page);
});

test('a malformed link shows what was wrong and falls back to the defaults', async () => {
  for (const fragment of ['#scenario=%7Bnot-json', '#v=9&parallel.tp=2', '#v=1&parallel.tp=eight', '#v=1&bogus.key=1']) {
    const page = await open(fragment);
    const message = await page.textContent('#link-error');
    assert.ok(message && message.trim().length > 10, `${fragment}: ${message}`);
    await expectStages(page, cliReport(DEFAULTS));
    await close(page);
  }
});

test('a bad input shows the engine error next to its field', async () => {
  const page = await open();
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

test('a Hugging Face config.json fills the model fields', async () => {
  const page = await open();
  const config = {
    architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336,
    num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000,
    max_position_embeddings: 32768, hidden_act: 'silu', rms_norm_eps: 1e-5, tie_word_embeddings: false,
    rope_theta: 10000.0, sliding_window: 4096, torch_dtype: 'bfloat16', some_new_knob: 3,
  };
  await page.fill('#hf-config', JSON.stringify(config));
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#f-model-layers')?.value === '32');
  assert.equal(await page.inputValue('#f-model-kv_heads'), '8');
  assert.equal(await page.inputValue('#f-model-ffn_hidden'), '14336');
  assert.match(await page.textContent('#hf-import-message'), /some_new_knob/);
  const mistral = cliReport({ ...DEFAULTS, model: { preset: 'mistral-7b' } });
  await expectMetric(page, 'parameters.total', mistral.parameters.total);
  await close(page);
});

test('dark theme and a phone screen render', async () => {
  const dark = await open('', { colorScheme: 'dark' });
  await dark.screenshot({ path: join(shots, 'default-dark.png'), fullPage: true });
  await close(dark);
  const phone = await open('', { viewport: { width: 390, height: 844 } });
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal page scroll on a phone (overflow ${overflow}px)`);
  await phone.screenshot({ path: join(shots, 'phone.png'), fullPage: true });
  await close(phone);
});
