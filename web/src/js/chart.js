// Stacked horizontal bars, one per pipeline stage, drawn into <svg id="stage-chart"> at the
// container's pixel width (so text stays readable on a phone), with a capacity marker.
import { h, svg } from './dom.js';
import { bytes } from './format.js';

export const SERIES = [
  ['weights', 'Weights'],
  ['gradients', 'Gradients'],
  ['optimizer', 'Optimizer'],
  ['activations', 'Activations'],
  ['other', 'Other'],
];

export function renderChart(el, report, unit, width) {
  const W = Math.max(280, Math.round(width) || 640);
  const { stages, capacity } = report.memory;
  const max = Math.max(capacity, ...stages.map((s) => s.total)) || 1;
  const left = 64;
  const right = 72;
  const top = 22;
  const bar = stages.length > 16 ? 12 : 22;
  const gap = stages.length > 16 ? 4 : 10;
  const H = top + stages.length * (bar + gap) + 4;
  const x = (v) => left + (Math.max(0, v) / max) * (W - left - right);
  const fmt = (v) => `${bytes(v, unit)} ${unit}`;

  const rows = stages.map((s, i) => {
    const y = top + i * (bar + gap);
    let at = 0;
    const segs = SERIES.map(([key, label]) => {
      const v = s[key];
      const x0 = x(at);
      at += Math.max(0, v);
      const w = x(at) - x0;
      return w > 0
        ? svg('rect', { class: `seg seg-${key}`, x: x0.toFixed(2), y, width: w.toFixed(2), height: bar, 'data-chart-metric': `memory.stages.${i}.${key}`, 'data-value': v },
          svg('title', {}, `Stage ${s.stage} · ${label}: ${fmt(v)}`))
        : null;
    });
    return svg('g', { class: 'stage' },
      svg('text', { x: left - 8, y: y + bar / 2, class: 'axis', 'text-anchor': 'end', 'dominant-baseline': 'middle' }, `Stage ${s.stage}`),
      segs,
      svg('text', { x: x(s.total) + 6, y: y + bar / 2, class: 'total-label', 'dominant-baseline': 'middle', 'data-chart-metric': `memory.stages.${i}.total`, 'data-value': s.total }, bytes(s.total, unit)));
  });

  const cx = x(capacity);
  const anchor = cx > W - right - 40 ? 'end' : 'middle';
  el.setAttribute('viewBox', `0 0 ${W} ${H}`);
  el.setAttribute('width', W);
  el.setAttribute('height', H);
  el.replaceChildren(
    svg('title', {}, `Memory per device by pipeline stage (${unit}); capacity ${fmt(capacity)}`),
    ...rows,
    svg('line', { class: 'capacity', x1: cx, x2: cx, y1: top - 6, y2: H }),
    svg('text', { class: 'capacity-label', x: cx, y: top - 10, 'text-anchor': anchor }, `capacity ${fmt(capacity)}`),
  );
}

export function renderLegend(el) {
  el.replaceChildren(...SERIES.map(([key, label]) => h('span', { class: 'key' }, h('i', { class: `swatch seg-${key}`, 'aria-hidden': 'true' }), label)));
}
