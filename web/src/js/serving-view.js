// "Serve this model": the plan's model and device served as vLLM runs it, a replica of the plan's tp GPUs (the engine's
// serving estimate, engine/serve/serving.h through io/api.h serve_scenario_text; docs/serving.md): a GPU's memory, the
// requests that fit at once, time to first token and per output token, and the vLLM and SGLang flags. Every figure is
// the engine's; the only arithmetic here is unit scaling for display. A chunk of its own, fetched when the reader
// opens the section (app.js), with the whole engine behind it; app.js hands it the page's helpers.

import { linearTicks, tickLabel } from './axis.js';
import { svg } from './dom.js';
import { askFor, compareWithLog, keepImplied, logBox, reasons } from './section-answer.js';

// The request and its formats: field, label, input attributes (the engine checks every value and names the field).
const NUMBERS = [
  ['prompt_tokens', 'Prompt tokens', { min: 1, value: 1024 }],
  ['output_tokens', 'Output tokens', { min: 1, value: 256 }],
  ['max_prompt_tokens', 'Longest prompt (blank: the average)', { min: 1 }],
  ['max_output_tokens', 'Longest output (blank: the average)', { min: 1 }],
  ['concurrency', 'Requests at once', { min: 1, value: 64 }],
  ['request_rate', 'Requests/s (0: use requests at once)', { min: 0, step: 'any', value: 0 }],
  ['gpu_memory_utilization', 'GPU memory utilization', { min: 0.01, max: 1, step: 0.01, value: 0.9 }],
  ['cuda_graph_gib', 'CUDA graphs reserved in the budget, GiB (vLLM 0.21+)', { min: 0, step: 'any', value: 0 }],
  ['shared_prefix_tokens', 'Shared prefix tokens', { min: 0, value: 0 }],
  ['benchmark_requests', 'Benchmark run: requests to simulate (0: none)', { min: 0, value: 0 }],
];
// Speculative decoding (the "speculative" object): its drafter, and the draft tokens and their acceptance it needs.
const DRAFTERS = [['none', 'none'], ['ngram', 'n-gram (prompt lookup)'], ['mtp', 'the model\'s MTP modules'], ['eagle', 'an EAGLE head']];
const SPECULATION = [
  ['tokens', 'Draft tokens', { min: 1, max: 16, value: 3 }],
  ['acceptance', 'Acceptance', { min: 0, max: 0.999, step: 0.01, value: 0.7 }],
];
const MENUS = [
  ['engine', 'Server', [['vllm', 'vLLM'], ['transformers', 'transformers\' generate (one batch)']]],
  ['cache', 'Cache (transformers)', [['dynamic', 'dynamic'], ['static', 'static']]],
  ['weights', 'Weights', [['model', 'the model\'s dtype'], ['fp8', 'fp8'], ['int8', 'int8 (GPTQ/AWQ)'], ['int4', 'int4 (GPTQ/AWQ)'], ['nvfp4', 'NVFP4'], ['mxfp4', 'MXFP4']]],
  ['kv_cache_dtype', 'KV cache', [['auto', 'the model\'s dtype'], ['fp8', 'fp8']]],
];

// The serving plan search's targets (the "search" object: docs/serving.md); every weight and KV cache format is tried.
const TARGETS = [
  ['ttft_ms', 'Time to first token at most (ms, 0: none)', { min: 0, step: 'any', value: 0 }],
  ['tpot_ms', 'Time per output token at most (ms, 0: none)', { min: 0, step: 'any', value: 0 }],
];

let searchSeq = 0;

// Builds the section's contents once (index.html holds its title only) and wires them: #serving[data-state] is
// "ready", then "loading" and "drawn" (or "error") for each estimate. `page`: {engine, report(), unit(), h, bytes,
// duration, count, fixed, calibrate(fields), request(), saved(request)}.
export function wireServing(page) {
  const { h } = page;
  const box = document.querySelector('#serving');
  const fields = h('div', { class: 'serving-fields' },
    ...NUMBERS.map(([key, label, attrs]) => h('label', null, `${label} `, h('input', { id: `sv-${key}`, type: 'number', ...attrs }))),
    ...MENUS.map(([key, label, options]) => h('label', null, `${label} `,
      h('select', { id: `sv-${key}` }, ...options.map(([value, text]) => h('option', { value }, text))))),
    h('label', null, h('input', { id: 'sv-dp_attention', type: 'checkbox' }), ' Data-parallel attention over the plan\'s dp ranks (MoE)'),
    h('label', null, 'Speculative decoding ', h('select', { id: 'sv-spec-method' }, ...DRAFTERS.map(([value, text]) => h('option', { value }, text)))),
    ...SPECULATION.map(([key, label, attrs]) => h('label', null, `${label} `, h('input', { id: `sv-spec-${key}`, type: 'number', ...attrs }))));
  box.append(
    h('p', { class: 'muted' }, 'The plan\'s model and device served as vLLM runs it: one replica of the plan\'s tensor-parallel ' +
      'GPUs with continuous batching. Not yet checked against a measured serving run (docs/serving.md).'),
    fields,
    h('p', { id: 'serving-plan' }),
    h('p', { id: 'serving-status', role: 'status' }),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Serving estimate' }, h('table', { id: 'serving-table' })),
    h('div', { id: 'serving-chart', class: 'chart-scroll' }),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Latency against throughput' }, h('table', { id: 'serving-curve' })),
    h('div', { id: 'serving-launch' }),
    h('h4', null, 'Find a serving plan'),
    h('p', { class: 'muted' }, 'Every tensor-parallel size on this device (pipeline stages across nodes where one node holds ' +
      'no replica), weight format and KV cache format, each at the most requests at once that fit and meet the targets, ' +
      'ranked by output tokens per second per GPU.'),
    h('div', { class: 'serving-fields' },
      ...TARGETS.map(([key, label, attrs]) => h('label', null, `${label} `, h('input', { id: `sv-search-${key}`, type: 'number', ...attrs }))),
      h('button', { id: 'serving-search-run', type: 'button' }, 'Find plans')),
    h('p', { id: 'serving-search-status', role: 'status' }),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Serving plans' }, h('table', { id: 'serving-plans' })),
    ...logBox(h, 'serving', 'Compare with my vLLM log', 'Paste a vLLM server\'s start-up lines (its memory profile, ' +
      '"Available KV cache memory", "GPU KV cache size", "Maximum concurrency for"): the engine reads them and sets each ' +
      'beside this estimate. Nothing is sent anywhere.', 'vLLM log'));
  fields.addEventListener('input', () => {
    page.saved(request());
    refreshServing(page);
  });
  box.querySelector('#serving-search-run').addEventListener('click', () => searchServing(page));
  box.querySelector('#serving-log-run').addEventListener('click', () => compareLog(page));
  box.querySelector('#serving-log-keep').addEventListener('click', () => keepImplied(implied, 'serving.',
    (field) => document.querySelector(`#sv-${field}`), page, request, () => refreshServing(page)));
  box.dataset.state = 'ready';
  restoreServing(page);
}

// Fills the fields from the link's serving request (the page's `serve=`), or the defaults where it has none, and
// answers for it.
export function restoreServing(page) {
  const saved = page.request() ?? {};
  const set = (id, value, fallback) => {
    const input = document.querySelector(id);
    if (input) input.value = value ?? fallback;
  };
  for (const [key, , attrs] of NUMBERS) set(`#sv-${key}`, saved[key], attrs.value ?? '');
  for (const [key, , options] of MENUS) set(`#sv-${key}`, saved[key], options[0][0]);
  set('#sv-spec-method', saved.speculative?.method, 'none');
  document.querySelector('#sv-dp_attention').checked = saved.dp_attention === true;
  for (const [key, , attrs] of SPECULATION) set(`#sv-spec-${key}`, saved.speculative?.[key], attrs.value);
  refreshServing(page);
}

// The request as the fields give it (the engine's "serving" object).
function request() {
  const serving = {};
  for (const [key] of NUMBERS) {
    const v = document.querySelector(`#sv-${key}`).value;
    if (v !== '') serving[key] = Number(v);
  }
  for (const [key] of MENUS) serving[key] = document.querySelector(`#sv-${key}`).value;
  if (document.querySelector('#sv-dp_attention').checked) serving.dp_attention = true;
  const method = document.querySelector('#sv-spec-method').value;
  if (method !== 'none') {
    serving.speculative = { method };
    for (const [key] of SPECULATION) {
      const v = document.querySelector(`#sv-spec-${key}`).value;
      if (v !== '') serving.speculative[key] = Number(v);
    }
  }
  return serving;
}

// The scenario served: the plan's model, device and tensor parallelism (the report's resolved scenario), and its dp
// ranks under data-parallel attention, with the request.
// transformers' generate runs the model's own modules in plain PyTorch over the plan's tp GPUs, compiled as the plan
// says.
function servingScenario(report) {
  const s = report.scenario;
  const serving = request();
  if (serving.engine === 'transformers') {
    const compile = s.implementation?.compile;
    return { framework: 'pytorch', model: s.model, hardware: s.hardware, parallel: { tp: s.parallel.tp }, serving,
      ...(compile ? { implementation: { compile } } : {}) };
  }
  return { model: s.model, hardware: s.hardware, parallel: { tp: s.parallel.tp, dp: serving.dp_attention ? s.parallel.dp : 1 }, serving };
}

// Asks the engine again (the plan or a field changed) and draws the answer unless a newer one was asked for.
export async function refreshServing(page) {
  const box = document.querySelector('#serving');
  const report = page.report();
  if (!box.open || box.dataset.state === undefined || !report) return;
  const answer = await askFor(box, () => page.engine.serve(servingScenario(report)));
  if (!answer) return;
  if (compared) compareLog(page);
  const status = document.querySelector('#serving-status');
  const table = document.querySelector('#serving-table');
  const launch = document.querySelector('#serving-launch');
  const curve = document.querySelector('#serving-curve');
  curve.replaceChildren();
  if (!answer.ok) {
    status.textContent = `No serving estimate: ${reasons(answer)}.`;
    document.querySelector('#serving-summary').textContent = status.textContent;
    table.replaceChildren();
    launch.replaceChildren();
    box.dataset.state = 'error';
    return;
  }
  draw(page, answer.serving, status, table, launch);
  drawCurve(page, answer.serving.curve ?? [], curve, answer.serving.request.concurrency);
  box.dataset.state = 'drawn';
}

// The replica's latency against its throughput as the requests at once grow (the engine's curve): one row a point.
function drawCurve(page, points, table, current) {
  const { h, duration, count, fixed } = page;
  drawCurveChart(points, current);
  if (!points.length) return;
  table.append(h('caption', null, 'Latency against throughput, this request shape'),
    h('thead', null, h('tr', null, ...['Requests at once', 'Time per output token', 'Output tokens/s per GPU'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, ...points.map((p) => h('tr', { 'data-concurrency': String(p.concurrency) },
      h('td', null, count(p.concurrency)), h('td', null, duration(p.tpot_seconds)), h('td', null, fixed(p.tokens_per_second_per_gpu, 1))))));
}

// The curve as a chart: time per output token (up) against output tokens per second per GPU (across), a point for each
// number of requests at once, the request's own ringed. Layout only: every value is the engine's.
function drawCurveChart(points, current) {
  const box = document.querySelector('#serving-chart');
  box.replaceChildren();
  if (points.length < 2) return;
  const W = 520, H = 220, L = 52, R = 14, T = 10, B = 38;
  // Ticks that reach past the largest value, so every point is inside the axes.
  const cover = (max, n) => {
    const t = linearTicks(max, n);
    if (t[t.length - 1] < max) t.push(t[t.length - 1] + (t[1] ?? max));
    return t;
  };
  const xt = cover(Math.max(...points.map((p) => p.tokens_per_second_per_gpu)), 5);
  const yt = cover(Math.max(...points.map((p) => p.tpot_seconds * 1e3)), 4);
  const x = (v) => (L + (v / xt[xt.length - 1]) * (W - L - R)).toFixed(1);
  const y = (v) => (H - B - (v / yt[yt.length - 1]) * (H - T - B)).toFixed(1);
  const at = (p) => [x(p.tokens_per_second_per_gpu), y(p.tpot_seconds * 1e3)];
  // Presentation attributes, not the stylesheet: the page's first download carries no styles for a section opened later.
  box.append(svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, 'font-size': 11, role: 'img',
    'aria-label': 'Time per output token against output tokens per second per GPU' },
    ...xt.map((t, i) => svg('g', null, svg('line', { class: 'grid-line', x1: x(t), x2: x(t), y1: T, y2: H - B }),
      svg('text', { class: 'tick', x: x(t), y: H - B + 14, 'text-anchor': i === xt.length - 1 ? 'end' : 'middle' }, tickLabel(t)))),
    ...yt.map((t) => svg('g', null, svg('line', { class: 'grid-line', x1: L, x2: W - R, y1: y(t), y2: y(t) }),
      svg('text', { class: 'tick', x: L - 6, y: y(t), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, tickLabel(t)))),
    svg('text', { class: 'tick', x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle' }, 'output tokens/s per GPU'),
    svg('text', { class: 'tick', x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(T + H - B) / 2})` }, 'ms per output token'),
    svg('polyline', { fill: 'none', stroke: 'currentColor', points: points.map((p) => at(p).join(',')).join(' ') }),
    ...points.map((p) => {
      const [cx, cy] = at(p);
      return svg('circle', { cx, cy, r: p.concurrency === current ? 5 : 3, fill: 'currentColor', class: p.concurrency === current ? 'current' : '',
        'data-concurrency': String(p.concurrency) }, svg('title', null, `${p.concurrency} at once`));
    })));
}

function draw(page, s, status, table, launch) {
  const { h, bytes, duration, count, fixed } = page;
  const unit = page.unit();
  const m = s.memory;
  const t = s.time;
  const r = s.request;
  // What is served, on what: the line an embed of this answer shows first.
  const rep = s.replica;
  const server = MENUS[0][2].find(([value]) => value === s.serving.engine)?.[1] ?? s.serving.engine;
  const parallel = [rep.tp > 1 ? `tp ${count(rep.tp)}` : '', rep.pp > 1 ? `pp ${count(rep.pp)}` : '',
    rep.dp_attention_ranks > 1 ? `data-parallel attention over ${count(rep.dp_attention_ranks)}` : ''].filter(Boolean);
  document.querySelector('#serving-plan').textContent = `${page.model()} served by ${server} on ` +
    `${rep.gpus > 1 ? `${count(rep.gpus)} × ` : ''}${rep.device}${parallel.length ? ` (${parallel.join(', ')})` : ''}.`;
  const rate = r.request_rate > 0 ? (r.keeps_up
    ? `At ${fixed(r.request_rate, 2)} requests/s the replica settles at ${count(r.concurrency)} requests at once. `
    : `Does not keep up with ${fixed(r.request_rate, 2)} requests/s: at most ${fixed(r.max_request_rate, 2)}; the queue grows. `) : '';
  status.textContent = `${rate}${m.fits ? 'Fits' : 'Does not fit'}: the KV cache holds ${count(m.max_concurrency)} such requests at once; ` +
    `the longest single request: ${count(m.max_model_len)} tokens.`;
  const row = (key, label, value, text) => h('tr', null, h('th', { scope: 'row' }, label),
    h('td', { 'data-serving': key, 'data-value': String(value) }, text));
  const gib = (key, label) => row(`memory.${key}`, label, m[key], `${bytes(m[key], unit)} ${unit}`);
  table.replaceChildren(h('tbody', null,
    gib('weights_bytes', 'Weights, one GPU'),
    gib('activation_peak_bytes', 'Activation peak (vLLM\'s profile run)'),
    gib('kv_available_bytes', 'KV cache, one GPU'),
    row('memory.kv_bytes_per_token', 'KV cache per token (bytes)', m.kv_bytes_per_token, count(m.kv_bytes_per_token)),
    row('time.ttft_seconds', 'Time to first token', t.ttft_seconds, duration(t.ttft_seconds)),
    row('time.tpot_seconds', `Time per output token (${t.decode_bound}-bound)`, t.tpot_seconds, duration(t.tpot_seconds)),
    ...(t.tokens_per_step > 1 ? [
      row('time.decode_step_seconds', 'Decode step (drafts and verification)', t.decode_step_seconds, duration(t.decode_step_seconds)),
      row('time.tokens_per_step', 'Output tokens per step and request', t.tokens_per_step, fixed(t.tokens_per_step, 2))] : []),
    row('time.tokens_per_second_per_gpu', 'Output tokens/s per GPU', t.tokens_per_second_per_gpu, fixed(t.tokens_per_second_per_gpu, 1)),
    ...(t.cost_per_million_tokens > 0 ? [row('time.cost_per_million_tokens', 'Cost per million output tokens (hardware.price_per_gpu_hour)',
      t.cost_per_million_tokens, fixed(t.cost_per_million_tokens, 3))] : []),
    ...benchmarkRows(s.benchmark, row, page)));
  // Serving mode's answer bar (app.js showMode): the verdict and the figures a serving plan is judged by.
  const bar = [`${count(m.max_concurrency)} requests at once`, `time to first token ${duration(t.ttft_seconds)}`,
    `per output token ${duration(t.tpot_seconds)}`, `${fixed(t.tokens_per_second_per_gpu, 0)} output tokens/s per GPU`];
  if (t.cost_per_million_tokens > 0) bar.push(`${fixed(t.cost_per_million_tokens, 3)} per million output tokens`);
  document.querySelector('#serving-summary').replaceChildren(h('strong', null, m.fits ? 'Fits' : 'Does not fit'), ` · ${bar.join(' · ')}`);
  launch.replaceChildren(...s.launch.map((l) => h('div', { class: 'launch-tool', 'data-tool': l.tool },
    h('h4', null, l.tool), h('pre', null, `${l.lines.join('\n')}\n`))));
}

// The closed-loop benchmark run the engine simulated (serving.benchmark_requests; docs/serving.md "A benchmark run, step
// by step"), or why it did not run.
function benchmarkRows(b, row, { duration, count, fixed }) {
  if (!b) return [];
  if (b.skipped) return [row('benchmark.skipped', 'Benchmark run', 0, `not run: ${b.skipped}`)];
  const seconds = (key, label) => row(`benchmark.${key}`, label, b[key], duration(b[key]));
  return [
    row('benchmark.requests', `Benchmark run: ${count(b.requests)} requests, ${count(b.concurrency)} at once (steps, preemptions)`,
      b.requests, `${count(b.steps)} steps, ${count(b.preemptions)} preemptions`),
    seconds('mean_ttft_seconds', 'Benchmark: mean time to first token'),
    seconds('p99_ttft_seconds', 'Benchmark: p99 time to first token'),
    seconds('median_tpot_seconds', 'Benchmark: median time per output token'),
    row('benchmark.output_tokens_per_second_per_gpu', 'Benchmark: output tokens/s per GPU', b.output_tokens_per_second_per_gpu,
      fixed(b.output_tokens_per_second_per_gpu, 1)),
  ];
}

// The serving plan search for the plan's model and device and the request above (the engine's "search" object inside
// "serving"): the ranked replicas with their memory, latency and cost, and the best one's flags.
async function searchServing(page) {
  const report = page.report();
  if (!report) return;
  const { h, duration, count, fixed } = page;
  const box = document.querySelector('#serving');
  const scenario = servingScenario(report);
  delete scenario.serving.concurrency;
  delete scenario.serving.request_rate;
  const search = { weights: ['model', 'fp8', 'int8', 'int4', 'nvfp4', 'mxfp4'], kv_cache_dtypes: ['auto', 'fp8'] };
  for (const [key] of TARGETS) {
    const v = document.querySelector(`#sv-search-${key}`).value;
    if (v !== '') search[key] = Number(v);
  }
  scenario.serving.search = search;
  const id = ++searchSeq;
  box.dataset.search = 'running';
  const started = performance.now();
  let answer;
  try {
    answer = await page.engine.serve(scenario);
  } catch (err) {
    answer = { ok: false, error: { path: '', message: `engine failure: ${err.message}` } };
  }
  if (id !== searchSeq) return;
  const status = document.querySelector('#serving-search-status');
  const table = document.querySelector('#serving-plans');
  if (!answer.ok) {
    status.textContent = `No serving plans: ${reasons(answer)}.`;
    table.replaceChildren();
    box.dataset.search = 'error';
    return;
  }
  const r = answer.serving;
  const n = r.counts;
  status.textContent = `${count(n.tried)} replicas tried in ${fixed(performance.now() - started, 0)} ms, ${count(n.listed)} listed; left out: ` +
    `${count(n.does_not_fit)} do not hold one request, ${count(n.misses_target)} miss a target with one request, ${count(n.invalid)} not allowed here` +
    `${n.listed ? '' : '. Nothing fits: a larger device, more GPUs (max_pp on the CLI) or a shorter request'}.`;
  const heads = ['Rank', 'tp', 'pp', 'Attention ranks', 'Weights', 'KV cache', 'Requests at once', 'Time to first token', 'Time per output token',
    'Output tokens/s per GPU', 'Cost per million tokens', 'Latency-throughput front'];
  table.replaceChildren(h('thead', null, h('tr', null, ...heads.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, ...r.plans.map((p) => h('tr', { 'data-rank': String(p.rank) },
      h('td', null, String(p.rank)), h('td', null, String(p.replica.tp)), h('td', null, String(p.replica.pp)),
      h('td', null, String(p.replica.dp_attention_ranks)),
      h('td', null, p.serving.weights), h('td', null, p.serving.kv_cache_dtype), h('td', null, count(p.request.concurrency)),
      h('td', null, duration(p.time.ttft_seconds)), h('td', null, duration(p.time.tpot_seconds)),
      h('td', { 'data-value': String(p.time.tokens_per_second_per_gpu) }, fixed(p.time.tokens_per_second_per_gpu, 1)),
      h('td', null, p.cost_per_million_tokens > 0 ? fixed(p.cost_per_million_tokens, 3) : '-'),
      h('td', null, p.pareto ? 'yes' : 'no')))));
  box.dataset.search = 'drawn';
}

// A vLLM log against the estimate of the request above (the engine's reader and reconciliation, as `shardcalc serve
// FILE LOG`): each term the log reports, the estimate and the gap, what the log implies (its button keeps it) and what
// it cannot tell. Once compared, each new estimate compares again.
let implied = {};
let compared = false;
async function compareLog(page) {
  const report = page.report();
  if (!report) return;
  compared = true;
  const { h, bytes, fixed, count } = page;
  const unit = page.unit();
  const r = await compareWithLog({ h, box: document.querySelector('#serving'), table: document.querySelector('#serving-log-table'),
    status: document.querySelector('#serving-log-status'),
    cell: (t, v) => (t.unit === 'bytes' ? `${bytes(v, unit)} ${unit}` : t.key === 'kv_tokens' ? count(v) : fixed(v, 2)),
    implied: (v) => fixed(v, 2) },
  () => page.engine.serve(servingScenario(report), document.querySelector('#serving-log').value));
  implied = r?.calibration ?? {};
  document.querySelector('#serving-log-keep').hidden = Object.keys(implied).length === 0;
}
