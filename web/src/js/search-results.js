// "Find a plan", its results: the ranked table with a button per row that loads the plan into the form,
// and the Pareto chart of step time against memory per device. A chunk of its own (web/build.mjs),
// fetched by the first search (search-view.js), which also fetches the whole engine. Every figure is
// the engine's.
import { $, h, svg } from './dom.js';
import { fixed } from './format.js';

const GIB = 1024 ** 3;

function planLabel(p) {
  const q = p.parallel;
  const zero = q.distributed_optimizer ? 'distopt' : `zero ${q.zero}`;
  const parts = [`dp ${q.dp}`, `tp ${q.tp}`, `pp ${q.pp}`];
  if (q.vpp > 1) parts.push(`vpp ${q.vpp}`);
  if (q.sp) parts.push('sp');
  if (q.cp > 1) parts.push(`cp ${q.cp}`);
  if (q.ulysses > 1) parts.push(`ulysses ${q.ulysses}`);
  if (q.ep > 1) parts.push(`ep ${q.ep}`);
  if (q.ep > 1 && q.etp !== q.tp) parts.push(`etp ${q.etp}`);
  parts.push(zero);
  if (q.offload_optimizer !== 'none') parts.push(`offload ${q.offload_params !== 'none' ? 'opt+params' : 'opt'}`);
  return parts.join(' · ');
}

export function renderTable(result, load) {
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
      h('td', { class: 'num' }, fixed(p.time.tokens_per_second, 0)),
      h('td', null, p.reason),
      h('td', null, h('button', { type: 'button', class: 'load-plan', onclick: () => load(p) }, 'Load'))));
  const head = ['#', 'Framework', 'Devices', 'Plan', 'Micro-batch', 'Recompute', 'Peak (GiB)', 'Step (s)', 'MFU (%)',
    'Tokens/s', 'Why this rank', ''];
  $('#s-table').replaceChildren(h('thead', null, h('tr', null, head.map((t) => h('th', { scope: 'col' }, t)))), h('tbody', null, rows));
}

// Step time against memory per device: the listed plans, and the Pareto front joined by a line.
export function renderPareto(result, width) {
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

export function summary(result) {
  const c = result.counts;
  const n = (x) => fixed(x, 0);
  let text = `${n(c.candidates)} plans on ${result.devices.join(', ')} devices: ${n(c.fitting)} fit, ${n(c.does_not_fit)} do not fit, ` +
    `${n(c.invalid)} invalid, ${n(c.pruned)} skipped because a smaller variant already did not fit. Ranked by ${result.rank_by.replace(/_/g, ' ')}.`;
  if (result.answer) {
    const a = result.answer;
    text = (a.value !== undefined ? `Answer: ${a.field.replace(/_/g, ' ')} ${a.value}. ` : `No answer: ${a.reason}. `) + text;
  }
  return text;
}

// `host`: {engine, framework(), scenario(), load(plan), saved(settings)}.
