// "Serve this model" in real Chromium: the plan's model and device served as vLLM runs it, with the numbers and the
// launch flags `shardcalc serve` gives for the same request; it follows the request's fields and the plan, and an
// impossible request says why in the engine's words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULTS, cli, cliReport, close, link, open, scenario, useBrowser } from './harness.mjs';

const env = useBrowser();

// The CLI's serving estimate of the page's plan `s` for the request `serving`.
function cliServe(s, serving) {
  const r = cliReport(s).scenario;
  const text = JSON.stringify({ model: r.model, hardware: r.hardware, parallel: { tp: r.parallel.tp }, serving });
  return JSON.parse(execFileSync(cli, ['serve', '-', '--format', 'json'], { input: text }));
}

// The page at `path` with "Serve this model" opened and its first estimate drawn.
async function openServing(path = '') {
  const page = await open(env, path);
  await page.click('#serving summary');
  await page.waitForSelector('#serving[data-state="drawn"]');
  return page;
}

const cells = (page) => page.$$eval('#serving-table td[data-serving]', (tds) =>
  Object.fromEntries(tds.map((td) => [td.dataset.serving, Number(td.dataset.value)])));

const REQUEST = { prompt_tokens: 1024, output_tokens: 256, concurrency: 64, request_rate: 0, gpu_memory_utilization: 0.9, weights: 'model', kv_cache_dtype: 'auto' };

test('the plan\'s model served: memory, requests at once, TTFT and TPOT and the flags, as the CLI gives them', async () => {
  const page = await openServing();
  const expected = cliServe(DEFAULTS, REQUEST);
  const shown = await cells(page);
  for (const key of ['memory.weights_bytes', 'memory.kv_available_bytes', 'memory.kv_bytes_per_token', 'time.ttft_seconds',
    'time.tpot_seconds', 'time.tokens_per_second_per_gpu']) {
    const [part, field] = key.split('.');
    assert.ok(Math.abs(shown[key] - expected[part][field]) <= 1e-9 * Math.abs(expected[part][field]), `${key}: ${shown[key]} vs ${expected[part][field]}`);
  }
  assert.match(await page.textContent('#serving-status'),
    new RegExp(`^Fits: the KV cache holds ${expected.memory.max_concurrency.toLocaleString('en-US')} such requests at once`));
  const points = await page.$$eval('#serving-curve tbody tr', (rows) => rows.map((r) => Number(r.dataset.concurrency)));
  assert.deepEqual(points, expected.curve.map((p) => p.concurrency));
  // The chart: a point for each, the request's own ringed.
  const dots = await page.$$eval('#serving-chart circle', (cs) => cs.map((c) => [Number(c.dataset.concurrency), c.classList.contains('current')]));
  assert.deepEqual(dots, expected.curve.map((p) => [p.concurrency, p.concurrency === REQUEST.concurrency]));
  const tools = await page.$$eval('#serving-launch .launch-tool pre', (ps) => ps.map((p) => p.textContent));
  assert.deepEqual(tools, expected.launch.map((l) => `${l.lines.join('\n')}\n`));
  // A field changes: the engine answers again for the new request.
  await page.fill('#sv-concurrency', '8');
  const fewer = cliServe(DEFAULTS, { ...REQUEST, concurrency: 8 });
  await page.waitForFunction((v) => Number(document.querySelector('#serving-table td[data-serving="time.tpot_seconds"]')?.dataset.value) === v,
    fewer.time.tpot_seconds);
  // An impossible request: the engine's reason with its field.
  await page.fill('#sv-output_tokens', '200000');
  await page.waitForSelector('#serving[data-state="error"]');
  assert.match(await page.textContent('#serving-status'), /^No serving estimate: \/serving\/output_tokens: /);
  await close(page);
});

test('a benchmark run: the page asks the engine to simulate one and shows the CLI\'s run', async () => {
  const page = await openServing();
  await page.fill('#sv-concurrency', '8');
  await page.fill('#sv-benchmark_requests', '24');
  const expected = cliServe(DEFAULTS, { ...REQUEST, concurrency: 8, benchmark_requests: 24 }).benchmark;
  await page.waitForFunction((v) => Number(document.querySelector('#serving-table td[data-serving="benchmark.mean_ttft_seconds"]')?.dataset.value) === v,
    expected.mean_ttft_seconds);
  const shown = await cells(page);
  assert.equal(shown['benchmark.requests'], 24);
  for (const key of ['p99_ttft_seconds', 'median_tpot_seconds', 'output_tokens_per_second_per_gpu'])
    assert.equal(shown[`benchmark.${key}`], expected[key], key);
  // What it does not simulate: the engine's reason with its field.
  await page.fill('#sv-shared_prefix_tokens', '64');
  await page.waitForSelector('#serving[data-state="error"]');
  assert.match(await page.textContent('#serving-status'), /\/serving\/benchmark_requests: /);
  await close(page);
});

test('a shared prefix and speculative decoding: the page sends them and shows what the CLI gives', async () => {
  const page = await openServing();
  await page.fill('#sv-shared_prefix_tokens', '512');
  await page.selectOption('#sv-spec-method', 'ngram');
  await page.fill('#sv-spec-tokens', '3');
  await page.fill('#sv-spec-acceptance', '0.5');
  const expected = cliServe(DEFAULTS, { ...REQUEST, shared_prefix_tokens: 512, speculative: { method: 'ngram', tokens: 3, acceptance: 0.5 } });
  await page.waitForFunction((v) => Number(document.querySelector('#serving-table td[data-serving="time.tokens_per_step"]')?.dataset.value) === v,
    expected.time.tokens_per_step);
  const shown = await cells(page);
  for (const key of ['time.ttft_seconds', 'time.tpot_seconds', 'time.decode_step_seconds']) {
    const [part, field] = key.split('.');
    assert.ok(Math.abs(shown[key] - expected[part][field]) <= 1e-9 * Math.abs(expected[part][field]), `${key}: ${shown[key]} vs ${expected[part][field]}`);
  }
  const vllm = await page.textContent('#serving-launch .launch-tool pre');
  assert.match(vllm, /--speculative-config '\{"method": "ngram", "num_speculative_tokens": 3\}'/);
  assert.match(vllm, /--enable-prefix-caching/);
  // MTP on a model without its modules: the engine's reason, with the field.
  await page.selectOption('#sv-spec-method', 'mtp');
  await page.waitForSelector('#serving[data-state="error"]');
  assert.match(await page.textContent('#serving-status'), /\/serving\/speculative\/method: mtp drafts with the model's multi-token/);
  await close(page);
});

test('a request rate: the concurrency it settles at, as the CLI finds it, or that the replica does not keep up', async () => {
  const page = await openServing();
  await page.fill('#sv-request_rate', '5');
  const expected = cliServe(DEFAULTS, { ...REQUEST, request_rate: 5 });
  await page.waitForFunction((t) => document.querySelector('#serving-status')?.textContent.startsWith(t),
    `At 5.00 requests/s the replica settles at ${expected.request.concurrency.toLocaleString('en-US')} requests at once.`);
  await page.fill('#sv-request_rate', '900');
  await page.waitForFunction(() => document.querySelector('#serving-status')?.textContent.startsWith('Does not keep up with 900.00 requests/s'));
  await close(page);
});

test('the serving plan search on the page: the CLI\'s plans for the same model, device, request and targets', async () => {
  const page = await openServing();
  await page.fill('#sv-search-tpot_ms', '50');
  await page.click('#serving-search-run');
  await page.waitForSelector('#serving[data-search="drawn"]');
  const r = cliReport(DEFAULTS).scenario;
  const { concurrency, request_rate, ...request } = REQUEST;
  const text = JSON.stringify({ model: r.model, hardware: r.hardware, parallel: { tp: r.parallel.tp }, serving: { ...request,
    shared_prefix_tokens: 0, search: { weights: ['model', 'fp8', 'int8', 'int4', 'nvfp4', 'mxfp4'], kv_cache_dtypes: ['auto', 'fp8'], ttft_ms: 0, tpot_ms: 50 } } });
  const expected = JSON.parse(execFileSync(cli, ['serve', '-', '--format', 'json'], { input: text }));
  const shown = await page.$$eval('#serving-plans tbody tr', (rows) => rows.map((row) => Number(row.cells[9].dataset.value)));
  assert.deepEqual(shown, expected.plans.map((p) => p.time.tokens_per_second_per_gpu));
  assert.ok(shown.length > 0);
  assert.match(await page.textContent('#serving-search-status'), /^\d[\d,]* replicas tried in \d+ ms/);
  await close(page);
});

test('the serving request is in the link: a shared link reopens "Serve this model" with it and the same answer', async () => {
  const page = await openServing();
  await page.fill('#sv-concurrency', '8');
  await page.selectOption('#sv-kv_cache_dtype', 'fp8');
  await page.waitForFunction(() => window.location.hash.includes('serve='));
  const hash = await page.evaluate(() => window.location.hash);
  const serve = JSON.parse(decodeURIComponent(hash.split('&').find((p) => p.startsWith('serve=')).slice('serve='.length)));
  assert.equal(serve.concurrency, 8);
  assert.equal(serve.kv_cache_dtype, 'fp8');
  await close(page);
  // The link opened afresh: the section open, its fields and its answer those of the request.
  const again = await open(env, hash);
  await again.waitForSelector('#serving[data-state="drawn"]');
  assert.equal(await again.inputValue('#sv-concurrency'), '8');
  assert.equal(await again.inputValue('#sv-kv_cache_dtype'), 'fp8');
  const expected = cliServe(DEFAULTS, { ...REQUEST, concurrency: 8, kv_cache_dtype: 'fp8' });
  const shown = await cells(again);
  assert.equal(shown['time.tpot_seconds'], expected.time.tpot_seconds);
  await close(again);
  // A serving request that is not JSON is named and dropped; the rest of the link loads.
  const bad = await open(env, '#v=2&parallel.tp=2&serve=%7Bnot');
  assert.match(await bad.textContent('#link-error-text'), /^Some of this link could not be read.*serve= \(the serving request\) was dropped: the serving settings are not valid JSON/);
  assert.equal(await bad.evaluate(() => window.location.hash), '#v=2&parallel.tp=2');
  await close(bad);
});

test('a vLLM log against the estimate: the CLI\'s reconciliation of the same request, and an unreadable log named', async () => {
  const page = await openServing();
  const log = readFileSync(new URL('../data/logs/vllm-0.6.5-pr10511.log', import.meta.url), 'utf8');
  await page.fill('#serving-log', log);
  await page.click('#serving-log-run');
  await page.waitForSelector('#serving[data-log="drawn"]');
  const r = cliReport(DEFAULTS).scenario;
  const text = JSON.stringify({ model: r.model, hardware: r.hardware, parallel: { tp: r.parallel.tp }, serving: { ...REQUEST, shared_prefix_tokens: 0 } });
  const logFile = fileURLToPath(new URL('../data/logs/vllm-0.6.5-pr10511.log', import.meta.url));
  const expected = JSON.parse(execFileSync(cli, ['serve', '-', logFile, '--format', 'json'], { input: text }));
  const shown = await page.$$eval('#serving-log-table tbody tr', (rows) => rows.map((row) => [row.dataset.term, Number(row.cells[3].dataset.value)]));
  assert.deepEqual(shown, expected.terms.map((t) => [t.key, t.gap]));
  assert.match(await page.textContent('#serving-log-status'), /What the log implies for the scenario: hardware\.overhead_gib = 1\.79/);
  await page.fill('#serving-log', 'not a vLLM line');
  await page.click('#serving-log-run');
  await page.waitForSelector('#serving[data-log="error"]');
  assert.match(await page.textContent('#serving-log-status'), /^Not compared: \/log: no line of vLLM's start-up log was found/);
  await close(page);
});

test('data-parallel attention over the plan\'s dp ranks: the CLI\'s answer for DeepSeek-V3 on 8 H200s', async () => {
  const plan = scenario({ 'model.preset': 'deepseek-v3', 'hardware.preset': 'h200-sxm-141gb', 'parallel.tp': 1, 'parallel.dp': 8 });
  const page = await openServing(link(plan));
  await page.selectOption('#sv-weights', 'fp8');
  await page.check('#sv-dp_attention');
  await page.waitForFunction(() => window.location.hash.includes('dp_attention'));
  const resolved = cliReport(plan).scenario;
  const text = JSON.stringify({ model: resolved.model, hardware: resolved.hardware, parallel: { tp: 1, dp: 8 },
    serving: { ...REQUEST, shared_prefix_tokens: 0, weights: 'fp8', dp_attention: true } });
  const expected = JSON.parse(execFileSync(cli, ['serve', '-', '--format', 'json'], { input: text }));
  await page.waitForFunction((v) => Number(document.querySelector('#serving-table td[data-serving="time.tpot_seconds"]')?.dataset.value) === v,
    expected.time.tpot_seconds);
  assert.match(await page.textContent('#serving-launch'), /--enable-dp-attention/);
  await close(page);
});

test('transformers\' generate chosen as the server: one GPU of the plan\'s model, its numbers and Python launch as the CLI gives them', async () => {
  const s = { framework: 'pytorch', model: { preset: 'llama-3.1-8b' }, training: { seq_len: 2048 }, parallel: { dp: 8 },
    hardware: { preset: 'h100-sxm-80gb' } };
  const page = await openServing(link(s));
  await page.selectOption('#sv-engine', 'transformers');
  await page.selectOption('#sv-cache', 'static');
  const r = cliReport(s).scenario;
  const text = JSON.stringify({ framework: 'pytorch', model: r.model, hardware: r.hardware, parallel: { tp: 1 },
    serving: { ...REQUEST, engine: 'transformers', cache: 'static' } });
  const expected = JSON.parse(execFileSync(cli, ['serve', '-', '--format', 'json'], { input: text }));
  // The static cache may leave the per-token time as it was, so wait on the launch text as well.
  await page.waitForFunction((v) => Number(document.querySelector('#serving-table td[data-serving="time.tpot_seconds"]')?.dataset.value) === v
    && /cache_implementation="static"/.test(document.querySelector('#serving-launch')?.textContent ?? ''),
  expected.time.tpot_seconds);
  const tools = await page.$$eval('#serving-launch .launch-tool pre', (ps) => ps.map((p) => p.textContent));
  assert.deepEqual(tools, expected.launch.map((l) => `${l.lines.join('\n')}\n`));
  assert.match(tools[0], /cache_implementation="static"/);
  await close(page);
});

test('transformers\' generate over the plan\'s tensor parallelism: the CLI\'s numbers at tp 2 and its torchrun launch', async () => {
  const s = { framework: 'megatron', model: { preset: 'llama-3.1-8b' }, training: { seq_len: 2048 }, parallel: { dp: 4, tp: 2 },
    hardware: { preset: 'h100-sxm-80gb' } };
  const page = await openServing(link(s));
  await page.selectOption('#sv-engine', 'transformers');
  const r = cliReport(s).scenario;
  const text = JSON.stringify({ framework: 'pytorch', model: r.model, hardware: r.hardware, parallel: { tp: 2 },
    serving: { ...REQUEST, engine: 'transformers' } });
  const expected = JSON.parse(execFileSync(cli, ['serve', '-', '--format', 'json'], { input: text }));
  await page.waitForFunction((v) => Number(document.querySelector('#serving-table td[data-serving="time.tpot_seconds"]')?.dataset.value) === v
    && /torchrun --nproc-per-node=2/.test(document.querySelector('#serving-launch')?.textContent ?? ''),
  expected.time.tpot_seconds);
  const tools = await page.$$eval('#serving-launch .launch-tool pre', (ps) => ps.map((p) => p.textContent));
  assert.deepEqual(tools, expected.launch.map((l) => `${l.lines.join('\n')}\n`));
  await close(page);
});

test('Serving mode: the switch puts the plan\'s model served first, with an answer bar of the CLI\'s figures, and the link keeps it', async () => {
  const page = await open(env);
  await page.click('#mode-serve');
  await page.waitForSelector('#serving[data-state="drawn"]');
  const expected = cliServe(DEFAULTS, REQUEST);
  const bar = await page.textContent('#serving-summary');
  assert.match(bar, new RegExp(`^Fits · ${expected.memory.max_concurrency.toLocaleString('en-US')} requests at once · time to first token `));
  assert.equal(await page.getAttribute('#mode-serve', 'aria-pressed'), 'true');
  // Training's answer and sections step aside; the form stays (it sets the model, device and tp).
  for (const hidden of ['#summary', '#headline', '#time-section', '#search-section']) assert.equal(await page.isVisible(hidden), false, hidden);
  assert.equal(await page.isVisible('#scenario-form'), true);
  assert.equal(await page.textContent('#inputs-title'), 'Model, device and tensor parallelism');
  // The link carries the mode: opened again, it is the serving page with the same answer.
  const hash = await page.evaluate(() => window.location.hash);
  assert.match(hash, /&mode=serve/);
  await close(page);
  const again = await open(env, hash);
  await again.waitForSelector('#serving[data-state="drawn"]');
  assert.equal(await again.textContent('#serving-summary'), bar);
  // Back to training: its answer again, and the link without the mode.
  await again.click('#mode-train');
  assert.equal(await again.isVisible('#headline'), true);
  assert.equal(await again.isVisible('#serving-summary'), false);
  assert.doesNotMatch(await again.evaluate(() => window.location.hash), /mode=/);
  await close(again);
});

test('what a vLLM log implies is kept: the CUDA graphs\' reserve in the request, the memory outside PyTorch in the plan', async () => {
  const page = await openServing();
  // vLLM 0.27's reserve lines (gpustack/runner#251): 0.36 GiB for the graphs, the run at 0.82 of the device.
  const log = readFileSync(new URL('../data/logs/vllm-graph-reserve-gpustack-pr251.log', import.meta.url), 'utf8');
  await page.fill('#serving-log', log);
  await page.click('#serving-log-run');
  await page.waitForSelector('#serving[data-log="drawn"]');
  assert.equal(await page.isHidden('#serving-log-keep'), false);
  assert.match(await page.textContent('#serving-log-status'), /serving\.cuda_graph_gib = 0\.36/);
  await page.click('#serving-log-keep');
  // The request takes both, the link carries them, and compared again the log implies nothing more.
  await page.waitForFunction(() => document.querySelector('#sv-cuda_graph_gib').value === '0.36' &&
    document.querySelector('#sv-gpu_memory_utilization').value === '0.82');
  await page.waitForFunction(() => decodeURIComponent(window.location.hash).includes('"cuda_graph_gib":0.36'));
  await page.waitForFunction(() => document.querySelector('#serving').dataset.log === 'drawn' &&
    document.querySelector('#serving-log-keep').hidden);
  const reserve = await page.getAttribute('#serving-log-table tr[data-term="cuda_graphs_reserved_bytes"] td[data-value]', 'data-value');
  assert.ok(Math.abs(Number(reserve)) < 0.01 * 1073741824, reserve);
  // The plan's own field: vLLM 0.6.5's table implies the memory outside PyTorch, kept in the form.
  const table = readFileSync(new URL('../data/logs/vllm-0.6.5-pr10511.log', import.meta.url), 'utf8');
  await page.fill('#serving-log', table);
  await page.click('#serving-log-run');
  await page.waitForFunction(() => !document.querySelector('#serving-log-keep').hidden);
  await page.click('#serving-log-keep');
  await page.waitForFunction(() => decodeURIComponent(window.location.hash).includes('hardware.overhead_gib=1.79'));
  await close(page);
});
