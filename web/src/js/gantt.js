// The pipeline schedule as a Gantt chart: one row per stage, forward and backward blocks from
// report.pipeline.timeline (columns: stage, kind, microbatch, chunk, start, end in seconds).
// Three ways to draw it, by how wide a pass comes out:
//   blocks: up to MAX_SHAPES passes, one <rect> each with a <title> (and its microbatch number when it fits);
//   paths:  more passes, still wide enough to see: one <path> per colour, so thousands stay cheap;
//   runs:   passes thinner than MIN_PX (hundreds of microbatches): each row splits into a forward lane
//           (top half) and a backward lane (bottom half), and the passes of a lane less than MIN_PX
//           apart become one block, a run, with the microbatches and times it covers in its tooltip.
//           Warm-up, steady state, cool-down and idle time stay visible; "Show every pass" widens the
//           chart (it scrolls sideways) until each pass is wide enough to draw on its own.
// Layout only: every time placed on the chart is a report value.
import { h, svg } from './dom.js';
import { tickLabel, timeAxis, timeUnit } from './axis.js';

const MAX_SHAPES = 800;
// Narrower than this, a pass is a sliver: runs mode. Gaps narrower than this inside a lane are not drawn.
export const MIN_PX = 4;
// "Show every pass" widens the chart until the typical pass is this wide, up to MAX_WIDTH pixels.
const DETAIL_PX = 8;
const MAX_WIDTH = 30000;

// The reader's choice of "Show every pass", kept across re-renders (typing elsewhere redraws the chart).
let everyPass = false;

const median = (values) => {
  const v = [...values].sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : 0;
};

// Runs of passes per stage and kind: passes sorted by start, joined while the gap to the previous
// one is under `gap` seconds. Each run keeps the indices of its first pass and of the pass that ends it.
function runsOf(t, n, gap) {
  const lanes = new Map();
  for (let i = 0; i < n; i += 1) {
    const key = `${t.stage[i]}${t.kind[i] === 'B' ? 'B' : 'F'}`;
    if (!lanes.has(key)) lanes.set(key, []);
    lanes.get(key).push(i);
  }
  const runs = [];
  for (const list of lanes.values()) {
    list.sort((a, b) => t.start[a] - t.start[b]);
    let run = null;
    for (const i of list) {
      if (run && t.start[i] - t.end[run.last] < gap) {
        if (t.end[i] >= t.end[run.last]) run.last = i;
        run.passes += 1;
        run.mbMin = Math.min(run.mbMin, t.microbatch[i]);
        run.mbMax = Math.max(run.mbMax, t.microbatch[i]);
      } else {
        run = { first: i, last: i, passes: 1, mbMin: t.microbatch[i], mbMax: t.microbatch[i] };
        runs.push(run);
      }
    }
  }
  return runs;
}

export function renderGantt(box, legend, report, width) {
  const p = report.pipeline;
  const t = p?.timeline;
  const n = t?.stage?.length || 0;
  if (!p || !p.timeline_complete || n === 0) {
    box.replaceChildren(h('p', { class: 'muted gantt-message' },
      'This schedule has too many blocks to draw (the engine lists a timeline of up to 4,096 blocks); the bubble above still applies.'));
    legend.replaceChildren();
    return;
  }
  const stages = Math.max(p.stages?.length || 0, t.stage.reduce((a, s) => Math.max(a, s + 1), 0));
  const end = t.end.reduce((a, e) => Math.max(a, e), 0) || 1;
  const { unit, scale } = timeUnit(end);
  const [left, right, top, rowH, gap] = [62, 44, 4, stages > 16 ? 14 : 22, stages > 16 ? 2 : 4];
  const fit = Math.max(520, Math.round(width) || 640);
  // The typical pass as a share of the step: how wide it comes out at a given chart width.
  const typical = median(Array.from({ length: n }, (_, i) => (t.end[i] - t.start[i]) / end));
  const thin = typical * (fit - left - right) < MIN_PX;
  const wide = thin && everyPass && typical > 0 ? Math.min(MAX_WIDTH, Math.ceil(DETAIL_PX / typical) + left + right) : fit;
  const W = Math.max(fit, wide);
  const mode = thin && W === fit ? 'runs' : n <= MAX_SHAPES ? 'blocks' : 'paths';
  const axisY = top + stages * (rowH + gap);
  const H = axisY + 22;
  const x = (s) => left + (s / end) * (W - left - right);
  const y = (stage) => top + stage * (rowH + gap);
  const time = (i0, i1) => `${tickLabel(t.start[i0] * scale)}–${tickLabel(t.end[i1] * scale)} ${unit}`;
  const rows = Array.from({ length: stages }, (_, s) => svg('g', { class: 'gantt-row', 'data-stage': s },
    svg('rect', { class: 'row-band', x: left, y: y(s), width: W - left - right, height: rowH }),
    svg('text', { class: 'label', x: left - 8, y: y(s) + rowH / 2, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, `Stage ${s}`)));
  const paths = {};
  if (mode === 'runs') {
    const lane = rowH / 2 - 0.5;
    for (const r of runsOf(t, n, (MIN_PX / (W - left - right)) * end)) {
      const i = r.first;
      const kind = t.kind[i] === 'B' ? 'B' : 'F';
      const x0 = x(t.start[i]);
      const w = Math.max(1, x(t.end[r.last]) - x0);
      const mbs = r.mbMin === r.mbMax ? `microbatch ${r.mbMin}` : `microbatches ${r.mbMin}–${r.mbMax}`;
      rows[t.stage[i]]?.append(svg('rect', {
        class: `run block-${kind}`, x: x0.toFixed(2), y: (y(t.stage[i]) + (kind === 'B' ? lane + 1 : 0)).toFixed(1), width: w.toFixed(2), height: lane.toFixed(1),
        'data-stage': t.stage[i], 'data-kind': kind, 'data-first': r.first, 'data-last': r.last, 'data-passes': r.passes,
        'data-start': t.start[i], 'data-end': t.end[r.last],
      }, svg('title', {}, `stage ${t.stage[i]}, ${kind === 'F' ? 'forward' : 'backward'} passes of ${mbs}, ${time(i, r.last)}`)));
    }
  }
  for (let i = 0; mode !== 'runs' && i < n; i += 1) {
    const kind = t.kind[i] === 'B' ? 'B' : 'F';
    const cls = `block block-${kind}${t.chunk[i] % 2 ? ' chunk-odd' : ''}`;
    const x0 = x(t.start[i]);
    const w = Math.max(0.5, x(t.end[i]) - x0);
    const y0 = y(t.stage[i]);
    if (mode === 'paths') {
      paths[cls] = (paths[cls] || '') + `M${x0.toFixed(1)} ${y0}h${w.toFixed(1)}v${rowH}h${(-w).toFixed(1)}z`;
      continue;
    }
    const mb = String(t.microbatch[i]);
    const row = rows[t.stage[i]];
    row?.append(svg('rect', { class: cls, x: x0.toFixed(2), y: y0, width: w.toFixed(2), height: rowH },
      svg('title', {}, `stage ${t.stage[i]}, ${kind} microbatch ${mb} chunk ${t.chunk[i]}, ${time(i, i)}`)));
    if (w >= mb.length * 6.5 + 4 && rowH >= 14)
      row?.append(svg('text', { class: 'mb', x: (x0 + w / 2).toFixed(1), y: y0 + rowH / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, mb));
  }
  const el = svg('svg', { role: 'img', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-blocks': n, 'data-mode': mode },
    svg('title', {}, `Pipeline schedule (${p.schedule}): ${stages} stages, time in ${unit}` +
      (mode === 'runs' ? '; forward passes in the top half of each row, backward in the bottom half, passes closer than a few pixels joined into one block' : '')),
    timeAxis(end, left, W - right, axisY, top), rows,
    Object.entries(paths).map(([cls, d]) => svg('path', { class: cls.replace('block ', 'blocks '), d })));
  box.replaceChildren(el);
  const chunks = t.chunk.some((c) => c > 0);
  const toggle = thin
    ? h('button', { type: 'button', class: 'gantt-zoom', 'aria-pressed': String(everyPass), onclick: () => {
        everyPass = !everyPass;
        renderGantt(box, legend, report, width);
        legend.querySelector('.gantt-zoom')?.focus();
      } }, everyPass ? 'Fit to width' : 'Show every pass')
    : null;
  legend.replaceChildren(...(mode === 'runs'
    ? [
        h('span', { class: 'key' }, h('i', { class: 'swatch block-F', 'aria-hidden': 'true' }), 'Forward (top half of a row)'),
        h('span', { class: 'key' }, h('i', { class: 'swatch block-B', 'aria-hidden': 'true' }), 'Backward (bottom half)'),
        h('span', { class: 'key muted runs-note' }, `Schedule ${p.schedule}; too many microbatches for one block each at this width: ` +
          `a block is a run of passes less than ${MIN_PX} px apart (hover it for its microbatches and times); a gap is idle time`),
        toggle,
      ]
    : [
        h('span', { class: 'key' }, h('i', { class: 'swatch block-F', 'aria-hidden': 'true' }), 'Forward'),
        h('span', { class: 'key' }, h('i', { class: 'swatch block-B', 'aria-hidden': 'true' }), 'Backward'),
        chunks ? h('span', { class: 'key muted' }, 'lighter: odd virtual chunks') : null,
        h('span', { class: 'key muted' }, `Schedule ${p.schedule}${mode === 'blocks' ? '; numbers are microbatches' : ''}` +
          `${toggle ? '; every pass drawn: scroll sideways' : ''}`),
        toggle,
      ]).filter(Boolean));
}
