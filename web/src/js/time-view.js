// "Time and communication": headline figures, the step-time bar and table, and the
// communication table. Every figure is the report's (data-metric = its report path); the only
// arithmetic here is layout, the share of the step a part takes, and per-dimension subtotals.
import { h, svg } from './dom.js';
import { timeAxis } from './axis.js';
import { bytesUnit, count, duration, fixed, large, ms, percent, usd, usdPrice } from './format.js';
import { dig, hypothetical, metric, verdictOf } from './render.js';
import { TERMS } from './schema.js';

// The parts of time.breakdown with their words, in the order they happen in a step (the engine's:
// schedule/step_parts.h, through js/schema.js); unknown parts come last.
export const PARTS = TERMS.step_parts;

function parts(report) {
  const b = report.time?.breakdown || {};
  const known = PARTS.filter(([k]) => k in b);
  const extra = Object.keys(b).filter((k) => !PARTS.some(([p]) => p === k)).map((k) => [k, k.replaceAll('_', ' ')]);
  return [...known, ...extra].map(([key, label]) => ({ key, label, value: b[key], cls: PARTS.some(([p]) => p === key) ? `t-${key}` : 't-other' }));
}

const share = (value, step) => percent(step > 0 ? value / step : undefined);
const tflops = (v) => fixed(v, 1);
// A large count in words ("15 T", "1.23 M"), the exact value in the tooltip.
const big = (report, path, tag) => metric(report, path, large, tag, { title: count(dig(report, path)) });

// Shown before every time figure of a plan whose memory verdict is not "fits".
export const IF_IT_FITTED = 'If it fitted';

function hypotheticalNote(report) {
  const v = verdictOf(report);
  const why = v.key === 'tight'
    ? 'this plan is tight on memory and may fail from allocator fragmentation'
    : 'this plan does not fit in memory';
  return h('p', { class: 'hypo-note', 'data-hypothetical': 'true' }, h('strong', {}, 'Hypothetical: '),
    `${why}, so every time, throughput and cost figure below is what it would be if it fitted.`);
}

const hypoLabel = () => [h('span', { class: 'hypo-label' }, IF_IT_FITTED), ' '];

// Step time, throughput, MFU/HFU, bubble and the training run. In embed mode only the first
// line (step time, tokens/s, MFU) shows, with the hypothetical note when the plan does not fit.
// The section carries class "hypothetical" then, which mutes and stripes its figures.
export function renderTimeHeadline(el, report) {
  const hypo = hypothetical(report);
  el.closest('section')?.classList.toggle('hypothetical', hypo);
  if (!report.time) {
    el.replaceChildren(h('p', { class: 'muted' }, 'This engine reports no step time.'));
    return;
  }
  const m = (path, fmt, tag) => metric(report, path, fmt, tag);
  const run = report.training_run;
  el.replaceChildren(...[
    hypo ? hypotheticalNote(report) : null,
    h('p', { class: 'time-main' }, hypo ? hypoLabel() : null, 'Step time ', m('time.step_seconds', duration, 'strong'),
      ' · ', big(report, 'throughput.tokens_per_second', 'strong'), ' tokens/s · MFU ', m('time.mfu', percent, 'strong')),
    report.time.efficiency_warning
      ? h('p', { class: 'efficiency-warning', role: 'note' }, '⚠ ', report.time.efficiency_warning, '.')
      : null,
    h('small', { class: 'convention time-extra' }, 'MFU and HFU count FLOPs this way: ', report.flops?.convention || '—', '.'),
    h('p', { class: 'sub time-extra' }, hypo ? hypoLabel() : null, 'HFU ', m('time.hfu', percent), ' · ', m('throughput.tflops_per_device', tflops),
      ' model TFLOP/s per device (', m('throughput.hardware_tflops_per_device', tflops), ' executed) · ',
      m('throughput.samples_per_second', (v) => fixed(v, 2)), ' samples/s'),
    h('p', { class: 'sub time-extra' }, 'Pipeline bubble ', m('pipeline.bubble_fraction', percent), ' of the step (',
      m('pipeline.bubble_seconds', duration), `, ${report.pipeline?.schedule || 'schedule'}) · slowest stage `, m('time.critical_stage', count)),
    run ? h('p', { class: 'sub time-extra time-run' }, hypo ? hypoLabel() : null, 'Training on ', big(report, 'training_run.tokens'), ' tokens: ',
      m('training_run.days', (v) => fixed(v, 1)), ' days · ', big(report, 'training_run.gpu_hours'), ' GPU-hours',
      run.price_per_gpu_hour > 0
        ? [' · cost ', m('training_run.cost', usd), ' at ', m('training_run.price_per_gpu_hour', usdPrice), ' per GPU-hour']
        : ' (set a price per GPU-hour under Hardware for the cost)') : null,
  ].filter(Boolean));
}

// One horizontal bar of the step's non-zero parts, with a time axis, and its legend.
export function renderTimeChart(el, legend, report, width) {
  const step = report.time?.step_seconds;
  const shown = parts(report).filter((p) => p.value > 0);
  const W = Math.max(300, Math.round(width) || 640);
  const [left, right, top, bar] = [4, 40, 6, 30];
  const H = top + bar + 26;
  const max = step > 0 ? step : 1;
  const x = (s) => left + (s / max) * (W - left - right);
  let at = 0;
  const segs = shown.map((p) => {
    const x0 = x(at);
    at += p.value;
    return svg('rect', { class: `seg ${p.cls}`, x: x0.toFixed(2), y: top, width: Math.max(0, x(at) - x0).toFixed(2), height: bar,
      'data-chart-metric': `time.breakdown.${p.key}`, 'data-value': p.value },
    svg('title', {}, `${p.label}: ${duration(p.value)} (${share(p.value, step)} of the step)`));
  });
  el.setAttribute('viewBox', `0 0 ${W} ${H}`);
  el.setAttribute('width', W);
  el.setAttribute('height', H);
  el.replaceChildren(svg('title', {}, `Step time ${duration(step)} by part`), timeAxis(max, left, W - right, top + bar + 2, top), ...segs);
  legend.replaceChildren(...shown.map((p) => h('span', { class: 'key' }, h('i', { class: `swatch ${p.cls}`, 'aria-hidden': 'true' }), `${p.label} ${duration(p.value)}`)));
}

export function renderTimeTable(table, report) {
  const step = report.time?.step_seconds;
  const col = (text) => h('th', { scope: 'col', class: 'num' }, text);
  table.replaceChildren(
    h('caption', { class: 'sr-only' }, 'Parts of one step on the slowest stage, in milliseconds'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Part of the step'), col('Time (ms)'), col('Share of step'))),
    // Parts that take no time in this plan (no pipeline, no offload, ...) are left out; the total says the rest.
    h('tbody', {}, parts(report).filter((p) => p.value > 0).map((p) => h('tr', { 'data-part': p.key },
      h('th', { scope: 'row' }, h('i', { class: `swatch ${p.cls}`, 'aria-hidden': 'true' }), p.label),
      metric(report, `time.breakdown.${p.key}`, ms, 'td'),
      h('td', { class: 'num' }, share(p.value, step))))),
    h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, hypothetical(report) ? `Step (${IF_IT_FITTED.toLowerCase()})` : 'Step'),
      metric(report, 'time.step_seconds', ms, 'td'), h('td', { class: 'num' }, share(step, step)))),
  );
}

// The communication table's columns in groups (a header row names each group, <colgroup>s draw the
// lines between them). Byte cells carry their own unit (KiB to GiB in one column), so no header names one.
const COMM_GROUPS = [
  ['What', [['Dimension'], ['Collective'], ['Purpose']]],
  ['Group', [['Size', 'num'], ['First group'], ['Scale-out', null, 'leaves the NVLink domain: uses the NICs']]],
  ['Per iteration', [['Message size', 'num', 'bytes of one call'], ['Calls', 'num'], ['Volume', 'num', 'message size × calls']]],
  ['Time per iteration (ms)', [['Total', 'num'], ['Exposed', 'num', 'not hidden behind compute']]],
];
const COLUMNS = COMM_GROUPS.reduce((n, [, cols]) => n + cols.length, 0);

function members(list = []) {
  const text = list.slice(0, 4).join(', ') + (list.length > 4 ? `,\u00a0…\u00a0+${list.length - 4}` : '');
  return h('td', { class: 'group', title: list.join(', ') }, text);
}

// A collective the engine times at zero because nothing is exchanged (algorithm "none": a group of one
// device, or no bytes) says nothing about the plan; it is left out and the table says how many were.
const idle = (c) => !(c.seconds > 0) && !(c.exposed_seconds > 0) &&
  (c.algorithm === 'none' || !(c.bytes > 0) || !(c.volume_per_iteration > 0));

function idleNote(hidden) {
  const dims = [...new Set(hidden.map((c) => c.dimension))].join(', ');
  const alone = hidden.every((c) => c.group_size <= 1);
  const n = hidden.length;
  return `Not listed: ${n} ${dims} collective${n === 1 ? '' : 's'} that exchange${n === 1 ? 's' : ''} nothing and take${n === 1 ? 's' : ''} no time` +
    `${alone ? ' (a group of one device)' : ''}.`;
}

// One row per communication[] entry, grouped by dimension (in report order), each group closed
// by the engine's communication_summary row for that dimension (calls, volume, time, exposed time).
export function renderCommTable(table, report, unit) {
  const comm = report.communication || [];
  const hidden = comm.filter(idle);
  const dims = [...new Set(comm.filter((c) => !idle(c)).map((c) => c.dimension))];
  const size = (v) => bytesUnit(v, unit);
  const groups = dims.map((dim) => {
    const rows = comm.map((c, i) => [c, i]).filter(([c]) => c.dimension === dim && !idle(c));
    const total = (field, fmt) => metric(report, `communication_summary.${dim}.${field}`, fmt, 'td');
    return h('tbody', { 'data-dimension': dim },
      rows.map(([c, i]) => {
        const m = (field, fmt) => metric(report, `communication.${i}.${field}`, fmt, 'td');
        return h('tr', { class: c.overlapped ? 'overlapped' : null },
          h('th', { scope: 'row' }, c.dimension),
          h('td', {}, c.collective, h('span', { class: 'muted' }, ` ${c.algorithm || ''}`)),
          h('td', { class: 'purpose' }, c.purpose),
          m('group_size', count), members(c.first_group),
          h('td', {}, c.scale_out ? 'yes' : 'no'),
          m('bytes', size), m('count_per_iteration', count), m('volume_per_iteration', size),
          m('seconds', ms), metric(report, `communication.${i}.exposed_seconds`, ms, 'td', { title: c.overlapped ? 'partly hidden behind compute' : null }));
      }),
      h('tr', { class: 'subtotal' }, h('th', { scope: 'row', colspan: 6 }, `${dim} subtotal`), h('td', {}),
        total('count_per_iteration', count), total('volume_per_iteration', size), total('seconds', ms), total('exposed_seconds', ms)));
  });
  const colHead = ([text, cls, title]) => h('th', { scope: 'col', class: cls || null, title: title || null }, text);
  table.replaceChildren(
    h('caption', { class: 'sr-only' }, 'Collectives per iteration on one device of the slowest stage; each size carries its unit, times in ms'),
    ...COMM_GROUPS.map(([name, cols]) => h('colgroup', { span: cols.length, class: 'col-group', 'data-group': name })),
    h('thead', {},
      h('tr', { class: 'group-head' }, COMM_GROUPS.map(([name, cols]) => h('th', { scope: 'colgroup', colspan: cols.length }, name))),
      h('tr', {}, COMM_GROUPS.flatMap(([, cols]) => cols.map(colHead)))),
    ...(groups.length ? groups : [h('tbody', {}, h('tr', {}, h('td', { colspan: COLUMNS, class: 'muted' },
      hidden.length ? 'No communication takes time in this plan.' : 'No communication: one device holds the whole model and batch.')))]),
    // The note's text keeps to the visible part of the table when it scrolls sideways (style.css).
    ...(hidden.length ? [h('tfoot', {}, h('tr', {}, h('td', { colspan: COLUMNS, class: 'muted idle-note', 'data-hidden-rows': hidden.length },
      h('span', {}, idleNote(hidden)))))] : []),
  );
}
