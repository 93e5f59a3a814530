// "Find a plan": the engine's plan search run in the worker with progress and a cancel button, its
// ranked table and the Pareto chart of step time against memory per device, a button per row that
// loads the plan into the form. Settings live in the share link (search=). Every figure is the engine's.
import { $, h, svg } from './dom.js';

const GIB = 1024 ** 3;
const FRAMEWORKS = ['megatron', 'deepspeed', 'fsdp', 'pytorch'];
const ALL_DIMENSIONS = ['tp', 'pp', 'vpp', 'sp', 'cp', 'ulysses', 'zero', 'micro_batch', 'recompute', 'offload'];

// "8" -> 8, "8-64" -> {min: 8, max: 64}, "8, 16, 32" -> [8, 16, 32]; anything else goes to the engine
// as written, whose error names /search/devices.
export function parseDevices(text) {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  let m = /^(\d+)\s*-\s*(\d+)$/.exec(t);
  if (m) return { min: Number(m[1]), max: Number(m[2]) };
  m = t.split(/\s*,\s*/);
  if (m.length > 1 && m.every((x) => /^\d+$/.test(x))) return m.map(Number);
  return t;
}

function devicesText(v) {
  if (v == null) return '';
  if (typeof v === 'number' || typeof v === 'string') return String(v);
  if (Array.isArray(v)) return v.join(', ');
  return `${v.min}-${v.max}`;
}

// The panel's settings as the engine's "search" object.
function readSettings(framework) {
  const frameworks = FRAMEWORKS.filter((f) => $(`#s-fw-${f}`).checked);
  const settings = {
    question: $('#s-question').value,
    devices: parseDevices($('#s-devices').value),
    global_batch: $('#s-batch').value === '' ? undefined : Number($('#s-batch').value),
    rank_by: $('#s-rank').value,
    frameworks: frameworks.length ? frameworks : [framework],
    tp_within_node: $('#s-tp-node').checked,
    memory_margin: Number($('#s-margin').value || 0) / 100,
    top: 20,
  };
  if ($('#s-offload').checked) settings.dimensions = ALL_DIMENSIONS;
  return settings;
}

function showSettings(s, framework) {
  $('#s-question').value = s.question ?? 'best_plan';
  $('#s-devices').value = devicesText(s.devices);
  if (s.global_batch !== undefined) $('#s-batch').value = String(s.global_batch);
  $('#s-rank').value = s.rank_by ?? 'step_time';
  const fws = Array.isArray(s.frameworks) ? s.frameworks : [framework];
  for (const f of FRAMEWORKS) $(`#s-fw-${f}`).checked = fws.includes(f);
  $('#s-tp-node').checked = s.tp_within_node !== false;
  $('#s-margin').value = String(Math.round(100 * (Number(s.memory_margin) || 0)));
  $('#s-offload').checked = Array.isArray(s.dimensions) && s.dimensions.includes('offload');
}

const fixed = (x, d) => (Number.isFinite(x) ? x.toFixed(d) : '–');

function planLabel(p) {
  const q = p.parallel;
  const zero = q.distributed_optimizer ? 'distopt' : `zero ${q.zero}`;
  const parts = [`dp ${q.dp}`, `tp ${q.tp}`, `pp ${q.pp}`];
  if (q.vpp > 1) parts.push(`vpp ${q.vpp}`);
  if (q.sp) parts.push('sp');
  if (q.cp > 1) parts.push(`cp ${q.cp}`);
  if (q.ulysses > 1) parts.push(`ulysses ${q.ulysses}`);
  parts.push(zero);
  if (q.offload_optimizer !== 'none') parts.push(`offload ${q.offload_params !== 'none' ? 'opt+params' : 'opt'}`);
  return parts.join(' · ');
}

function renderTable(result, load) {
  const rows = result.plans.map((p) =>
    h('tr', { 'data-rank': p.rank },
      h('td', null, String(p.rank)),
      h('td', null, p.framework),
      h('td', { class: 'num' }, String(p.devices)),
      h('td', null, planLabel(p)),
      h('td', { class: 'num' }, String(p.micro_batch)),
      h('td', null, p.recompute),
      h('td', { class: 'num' }, fixed(p.memory.peak_bytes / GIB, 1)),
      h('td', { class: 'num' }, fixed(p.time.step_seconds, 3)),
      h('td', { class: 'num' }, fixed(100 * p.time.mfu, 1)),
      h('td', { class: 'num' }, Math.round(p.time.tokens_per_second).toLocaleString('en-US')),
      h('td', null, p.reason),
      h('td', null, h('button', { type: 'button', class: 'load-plan', onclick: () => load(p) }, 'Load'))));
  const head = ['#', 'Framework', 'Devices', 'Plan', 'Micro-batch', 'Recompute', 'Peak (GiB)', 'Step (s)', 'MFU (%)',
    'Tokens/s', 'Why this rank', ''];
  $('#s-table').replaceChildren(h('thead', null, h('tr', null, head.map((t) => h('th', { scope: 'col' }, t)))), h('tbody', null, rows));
}

// Step time against memory per device: the listed plans, and the Pareto front joined by a line.
function renderPareto(result, width) {
  const box = $('#s-pareto');
  const points = [...result.plans, ...result.pareto];
  if (!points.length) {
    box.replaceChildren();
    return;
  }
  const W = Math.max(320, Math.min(width, 720));
  const H = 220;
  const pad = { l: 56, r: 12, t: 10, b: 36 };
  const xs = points.map((p) => p.memory.peak_bytes / GIB);
  const ys = points.map((p) => p.time.step_seconds);
  const [x0, x1] = [Math.min(...xs) * 0.95, Math.max(...xs) * 1.05];
  const [y0, y1] = [Math.min(...ys) * 0.95, Math.max(...ys) * 1.05];
  const X = (v) => pad.l + ((v - x0) / (x1 - x0 || 1)) * (W - pad.l - pad.r);
  const Y = (v) => H - pad.b - ((v - y0) / (y1 - y0 || 1)) * (H - pad.t - pad.b);
  const front = result.pareto.slice().sort((a, b) => a.memory.peak_bytes - b.memory.peak_bytes);
  const line = front.map((p) => `${X(p.memory.peak_bytes / GIB).toFixed(1)},${Y(p.time.step_seconds).toFixed(1)}`).join(' ');
  box.replaceChildren(svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': `Pareto front: ${front.length} plans, step time against memory per device` },
  svg('line', { x1: pad.l, y1: H - pad.b, x2: W - pad.r, y2: H - pad.b, class: 'axis' }),
  svg('line', { x1: pad.l, y1: pad.t, x2: pad.l, y2: H - pad.b, class: 'axis' }),
  svg('text', { x: (W + pad.l) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-label' }, 'peak memory per device (GiB)'),
  svg('text', { x: 12, y: pad.t + 8, class: 'axis-label' }, 'step (s)'),
  svg('text', { x: pad.l, y: H - pad.b + 14, 'text-anchor': 'middle', class: 'tick' }, fixed(x0, 0)),
  svg('text', { x: W - pad.r, y: H - pad.b + 14, 'text-anchor': 'end', class: 'tick' }, fixed(x1, 0)),
  svg('text', { x: pad.l - 4, y: H - pad.b, 'text-anchor': 'end', class: 'tick' }, fixed(y0, 2)),
  svg('text', { x: pad.l - 4, y: pad.t + 8, 'text-anchor': 'end', class: 'tick' }, fixed(y1, 2)),
  result.plans.map((p) => svg('circle', { cx: X(p.memory.peak_bytes / GIB), cy: Y(p.time.step_seconds), r: 3, class: 'plan-dot' })),
  svg('polyline', { points: line, class: 'pareto-line', fill: 'none' }),
  front.map((p) => svg('circle', { cx: X(p.memory.peak_bytes / GIB), cy: Y(p.time.step_seconds), r: 4, class: 'pareto-dot' },
    svg('title', null, `${p.framework} ${planLabel(p)}, micro-batch ${p.micro_batch}: ${fixed(p.memory.peak_bytes / GIB, 1)} GiB, ${fixed(p.time.step_seconds, 3)} s`)))));
}

function summary(result) {
  const c = result.counts;
  const n = (x) => x.toLocaleString('en-US');
  let text = `${n(c.candidates)} plans on ${result.devices.join(', ')} devices: ${n(c.fitting)} fit, ${n(c.does_not_fit)} do not fit, ` +
    `${n(c.invalid)} invalid, ${n(c.pruned)} skipped because a smaller variant already did not fit. Ranked by ${result.rank_by.replace(/_/g, ' ')}.`;
  if (result.answer) {
    const a = result.answer;
    text = (a.value !== undefined ? `Answer: ${a.field.replace(/_/g, ' ')} ${a.value}. ` : `No answer: ${a.reason}. `) + text;
  }
  return text;
}

// `host`: {engine, framework(), scenario(), load(plan), saved(settings)}.
export function wireSearch(host) {
  let running = null;
  const status = $('#s-status');
  const finish = () => {
    running = null;
    $('#s-run').disabled = false;
    $('#s-cancel').hidden = true;
    $('#s-progress').hidden = true;
  };
  async function run() {
    if (running) running.cancel();
    const settings = readSettings(host.framework());
    host.saved(settings);
    const scenario = { ...host.scenario(), search: settings };
    $('#s-run').disabled = true;
    $('#s-cancel').hidden = false;
    $('#s-progress').hidden = false;
    $('#s-progress').value = 0;
    status.textContent = 'Searching…';
    const job = host.engine.search(scenario, (f) => { $('#s-progress').value = f; });
    running = job;
    let answer;
    try {
      answer = await job.result;
    } catch (err) {
      answer = { ok: false, error: { path: '', message: `engine failure: ${err.message}` } };
    }
    if (running !== job) return; // replaced by a newer search
    finish();
    if (answer === null) {
      status.textContent = 'Search cancelled.';
      return;
    }
    if (!answer.ok) {
      status.textContent = `The search could not run: ${answer.error.path ? `${answer.error.path}: ` : ''}${answer.error.message}`;
      $('#s-table').replaceChildren();
      $('#s-pareto').replaceChildren();
      return;
    }
    const result = answer.search;
    status.textContent = summary(result);
    if (result.answer?.plan && !result.plans.length) result.plans = [{ ...result.answer.plan, rank: 1 }];
    renderTable(result, host.load);
    renderPareto(result, $('#s-pareto').clientWidth || 640);
    document.body.dataset.searchDone = String(Date.now());
  }
  $('#s-run').addEventListener('click', run);
  $('#s-cancel').addEventListener('click', () => {
    running?.cancel();
  });
  return {
    show(settings) {
      showSettings(settings, host.framework());
    },
    run,
  };
}
