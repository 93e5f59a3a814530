// "Compare": plan A (pinned) beside plan B (the plan in the form), one row per figure, both
// columns straight from the two engine reports. A row whose value differs between A and B is
// highlighted and shows B − A: the difference of the two report numbers, formatted like them;
// nothing else is computed here.
//
// Each number is an element with data-compare-metric = its report path, data-side = "a" or "b"
// (whose report) and data-value = the raw value; the difference cell carries data-delta. (The
// sections below keep data-metric for B's report alone, so the two never mix.)
import { h } from './dom.js';
import { bytes, count, duration, fixed, large, ms, percent, usd } from './format.js';
import { PARTS } from './time-view.js';
import { VERDICTS, dig, hypothetical, planNodes } from './render.js';

const whole = (v) => fixed(v, 0);
const finite = (v) => typeof v === 'number' && Number.isFinite(v);
// A signed difference: "+1.25", "−0.50" (a real minus sign).
const signed = (text, d) => (d > 0 ? `+${text}` : text.replace(/^-/, '−'));

// Row kinds: how a value and a difference read. `pp`: percentage points.
const KINDS = {
  bytes: (unit) => ({ show: (v) => bytes(v, unit), diff: (d) => bytes(d, unit) }),
  seconds: () => ({ show: duration, diff: duration }),
  ms: () => ({ show: ms, diff: ms }),
  percent: () => ({ show: percent, diff: (d) => `${fixed(d * 100, 1)} pp` }),
  whole: () => ({ show: whole, diff: whole }),
  large: () => ({ show: large, diff: large }),
  usd: () => ({ show: usd, diff: usd }),
  days: () => ({ show: (v) => fixed(v, 1), diff: (d) => fixed(d, 1) }),
  count: () => ({ show: count, diff: count }),
  verdict: () => ({ show: (v) => (v == null ? '—' : `${VERDICTS[v]?.symbol || '?'} ${VERDICTS[v]?.label || String(v).replaceAll('_', ' ')}`), diff: null }),
};

const row = (label, path, kind, extra = {}) => ({ label, path, kind, ...extra });

function memoryRows(a, b, unit, compact) {
  const rows = [
    row('Verdict', 'memory.verdict.verdict', 'verdict'),
    row(`Margin (${unit})`, 'memory.verdict.margin', 'bytes'),
    row(`Per-device peak (${unit})`, 'memory.per_device.total', 'bytes'),
  ];
  if (compact) return [{ title: 'Memory per device', rows }];
  rows.push(row('Peak on stage', 'memory.per_device.stage', 'count'), row(`Capacity (${unit})`, 'memory.capacity', 'bytes'));
  const groups = [{ title: 'Memory per device', rows }];
  const stages = Math.max(a.memory.stages.length, b.memory.stages.length);
  const fields = [['Weights', 'weights'], ['Gradients', 'gradients'], ['Optimizer', 'optimizer'], ['Activations', 'activations'],
    ['Allocated', 'allocated'], ['Reserved', 'reserved'], ['Total', 'total']];
  for (let i = 0; i < stages; i += 1)
    groups.push({ title: `Stage ${i}`, rows: fields.map(([label, f]) => row(`${label} (${unit})`, `memory.stages.${i}.${f}`, 'bytes', { strong: f === 'total' })) });
  return groups;
}

function timeRows(a, b, compact) {
  const rows = [
    row('Step time', 'time.step_seconds', 'seconds', { time: true }),
    row('MFU', 'time.mfu', 'percent', { time: true }),
    row('Tokens/s', 'throughput.tokens_per_second', 'whole', { time: true }),
  ];
  if (!compact) {
    // Every part of the step that takes time in A or B, in the order of the time section.
    const keys = [...new Set([...Object.keys(a.time?.breakdown || {}), ...Object.keys(b.time?.breakdown || {})])];
    const order = [...PARTS.map(([k]) => k).filter((k) => keys.includes(k)), ...keys.filter((k) => !PARTS.some(([p]) => p === k))];
    for (const key of order) {
      if (!(a.time?.breakdown?.[key] > 0) && !(b.time?.breakdown?.[key] > 0)) continue;
      const label = PARTS.find(([p]) => p === key)?.[1] || key.replaceAll('_', ' ');
      rows.push(row(`${label} (ms)`, `time.breakdown.${key}`, 'ms', { time: true, part: true }));
    }
  }
  if (a.training_run || b.training_run) {
    rows.push(row('Days to train', 'training_run.days', 'days', { time: true }));
    if (!compact) rows.push(row('GPU-hours', 'training_run.gpu_hours', 'large', { time: true }));
    if (a.training_run?.price_per_gpu_hour > 0 || b.training_run?.price_per_gpu_hour > 0)
      rows.push(row('Cost', 'training_run.cost', 'usd', { time: true }));
  }
  return [{ title: 'Time (one optimizer step)', rows }];
}

function commRows(a, b, unit) {
  const dims = [...new Set([...Object.keys(a.communication_summary || {}), ...Object.keys(b.communication_summary || {})])];
  if (!dims.length) return [];
  return [{
    title: 'Communication per iteration',
    rows: dims.flatMap((dim) => [
      row(`${dim} traffic (${unit})`, `communication_summary.${dim}.volume_per_iteration`, 'bytes', { time: false }),
      row(`${dim} time (ms)`, `communication_summary.${dim}.seconds`, 'ms', { time: true }),
      row(`${dim} exposed (ms)`, `communication_summary.${dim}.exposed_seconds`, 'ms', { time: true }),
    ]),
  }];
}

function cell(report, r, side, fmt, hypo) {
  const value = dig(report, r.path);
  return h('td', { class: `num${r.time && hypo ? ' hypo' : ''}`, 'data-side': side, 'data-compare-metric': r.path, 'data-value': String(value ?? '') },
    value === undefined ? '—' : fmt.show(value));
}

function tableRow(a, b, r, unit, hypoA, hypoB) {
  const fmt = KINDS[r.kind](unit);
  const va = dig(a, r.path);
  const vb = dig(b, r.path);
  const differs = String(va ?? '') !== String(vb ?? '');
  let delta = '';
  let attrs = {};
  if (differs && fmt.diff && finite(va) && finite(vb)) {
    const d = vb - va;
    delta = signed(fmt.diff(d), d);
    attrs = { 'data-delta': String(d) };
  } else if (differs) delta = va === undefined ? 'only in B' : vb === undefined ? 'only in A' : 'changed';
  return h('tr', { class: [differs ? 'differs' : '', r.strong ? 'strong' : ''].filter(Boolean).join(' ') || null, 'data-compare-row': r.path },
    h('th', { scope: 'row' }, r.label),
    cell(a, r, 'a', fmt, hypoA), cell(b, r, 'b', fmt, hypoB),
    h('td', { class: 'num delta', ...attrs }, differs ? delta : ''));
}

// Plan text without data-metric (the sections below own those paths for B).
function planText(report, presets) {
  const span = h('span', { class: 'compare-plan-text' }, planNodes(report, presets));
  for (const n of span.querySelectorAll('[data-metric]')) delete n.dataset.metric;
  return span;
}

// `a`: A's answer from the engine ({ok, report} or {ok: false, error}), null while it is computed;
// `b`: the current report (null before the first). `compact`: the embed view's few headline rows.
export function renderCompare(el, { a, b, unit, presets, compact = false }) {
  const head = [];
  const ra = a?.ok ? a.report : null;
  head.push(h('p', { class: 'compare-plan' }, h('span', { class: 'side-tag tag-a' }, 'A'), ' ',
    ra ? planText(ra, presets) : h('span', { class: 'muted' }, a ? 'could not be evaluated' : 'computing…')));
  head.push(h('p', { class: 'compare-plan' }, h('span', { class: 'side-tag tag-b' }, 'B'), ' ',
    b ? planText(b, presets) : h('span', { class: 'muted' }, 'computing…')));
  if (a && !a.ok) {
    const e = a.error || {};
    el.replaceChildren(...head, h('p', { class: 'compare-error', role: 'alert', 'data-compare-error': 'a' },
      'Plan A could not be evaluated, so there is nothing to compare: ', e.path ? `${e.path}: ` : '', e.message || 'unknown error',
      '. Pin the current plan to replace it, or unpin.'));
    return;
  }
  if (!ra || !b) {
    el.replaceChildren(...head);
    return;
  }
  const hypoA = hypothetical(ra);
  const hypoB = hypothetical(b);
  const groups = [...memoryRows(ra, b, unit, compact), ...timeRows(ra, b, compact), ...(compact ? [] : commRows(ra, b, unit))];
  const sideHead = (tag, label, hypo) => h('th', { scope: 'col', class: 'num' }, h('span', { class: `side-tag tag-${tag}` }, tag.toUpperCase()), h('span', { class: 'side-word' }, ` ${label}`),
    hypo ? h('span', { class: 'hypo-label', title: 'this plan does not fit (or is tight): its times are what they would be if it fitted' }, 'if it fitted') : null);
  const table = h('table', { class: 'compare-table' },
    h('caption', { class: 'sr-only' }, `Plan A (pinned) and plan B (current) side by side; sizes in ${unit}; highlighted rows differ, the last column is B − A`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Figure'), sideHead('a', 'pinned', hypoA), sideHead('b', 'current', hypoB),
      h('th', { scope: 'col', class: 'num' }, 'B − A'))),
    groups.map((g) => h('tbody', {},
      h('tr', { class: 'group' }, h('th', { scope: 'colgroup', colspan: 4 }, g.title)),
      g.rows.map((r) => tableRow(ra, b, r, unit, hypoA, hypoB)))));
  const same = table.querySelectorAll('tr.differs').length === 0;
  el.replaceChildren(...[...head,
    same ? h('p', { class: 'muted compare-same' }, 'A and B give the same figures.') : null,
    h('div', { class: 'scroll compare-scroll', tabindex: '0', role: 'region', 'aria-label': 'Comparison table' }, table),
    hypoA || hypoB ? h('p', { class: 'muted compare-note' }, 'Times marked "if it fitted" belong to a plan that does not fit (or is tight): they are what it would take if it fitted.') : null,
  ].filter(Boolean));
}
