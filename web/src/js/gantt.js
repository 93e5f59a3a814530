// The pipeline schedule as a Gantt chart: one row per stage, forward and backward blocks from
// report.pipeline.timeline (columns: stage, kind, microbatch, chunk, start, end in seconds).
// Up to MAX_SHAPES blocks are one <rect> each with a <title>; more are drawn as one <path> per
// colour so thousands of blocks stay cheap.
import { h, svg } from './dom.js';
import { tickLabel, timeAxis, timeUnit } from './axis.js';

const MAX_SHAPES = 800;

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
  const W = Math.max(520, Math.round(width) || 640);
  const [left, right, top, rowH, gap] = [62, 44, 4, stages > 16 ? 14 : 22, stages > 16 ? 2 : 4];
  const axisY = top + stages * (rowH + gap);
  const H = axisY + 22;
  const x = (s) => left + (s / end) * (W - left - right);
  const y = (stage) => top + stage * (rowH + gap);
  const shapes = n <= MAX_SHAPES;
  const rows = Array.from({ length: stages }, (_, s) => svg('g', { class: 'gantt-row', 'data-stage': s },
    svg('rect', { class: 'row-band', x: left, y: y(s), width: W - left - right, height: rowH }),
    svg('text', { class: 'label', x: left - 8, y: y(s) + rowH / 2, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, `Stage ${s}`)));
  const paths = {};
  for (let i = 0; i < n; i += 1) {
    const kind = t.kind[i] === 'B' ? 'B' : 'F';
    const cls = `block block-${kind}${t.chunk[i] % 2 ? ' chunk-odd' : ''}`;
    const x0 = x(t.start[i]);
    const w = Math.max(0.5, x(t.end[i]) - x0);
    const y0 = y(t.stage[i]);
    if (!shapes) {
      paths[cls] = (paths[cls] || '') + `M${x0.toFixed(1)} ${y0}h${w.toFixed(1)}v${rowH}h${(-w).toFixed(1)}z`;
      continue;
    }
    const mb = String(t.microbatch[i]);
    const row = rows[t.stage[i]];
    row?.append(svg('rect', { class: cls, x: x0.toFixed(2), y: y0, width: w.toFixed(2), height: rowH },
      svg('title', {}, `stage ${t.stage[i]}, ${kind} microbatch ${mb} chunk ${t.chunk[i]}, ` +
        `${tickLabel(t.start[i] * scale)}–${tickLabel(t.end[i] * scale)} ${unit}`)));
    if (w >= mb.length * 6.5 + 4 && rowH >= 14)
      row?.append(svg('text', { class: 'mb', x: (x0 + w / 2).toFixed(1), y: y0 + rowH / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, mb));
  }
  const el = svg('svg', { role: 'img', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-blocks': n, 'data-mode': shapes ? 'blocks' : 'paths' },
    svg('title', {}, `Pipeline schedule (${p.schedule}): ${stages} stages, time in ${unit}`),
    timeAxis(end, left, W - right, axisY, top), rows,
    Object.entries(paths).map(([cls, d]) => svg('path', { class: cls.replace('block ', 'blocks '), d })));
  box.replaceChildren(el);
  const chunks = t.chunk.some((c) => c > 0);
  legend.replaceChildren(...[
    h('span', { class: 'key' }, h('i', { class: 'swatch block-F', 'aria-hidden': 'true' }), 'Forward'),
    h('span', { class: 'key' }, h('i', { class: 'swatch block-B', 'aria-hidden': 'true' }), 'Backward'),
    chunks ? h('span', { class: 'key muted' }, 'lighter: odd virtual chunks') : null,
    h('span', { class: 'key muted' }, `Schedule ${p.schedule}${shapes ? '; numbers are microbatches' : ''}`),
  ].filter(Boolean));
}
