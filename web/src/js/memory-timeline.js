// "Memory over the step": what is allocated at each moment of one optimizer step
// (report.memory.stages[i].timeline, in step order) for one pipeline stage, stacked by memory
// line, with the device capacity as a horizontal line and, at the peak moment, the caching
// allocator's fragmentation (up to `reserved`) and the memory outside the allocator (up to
// `total`) on top. The most loaded stage is shown unless the reader picks another (pp > 1).
// Layout only: every value drawn or written is one of the report's.
import { h, svg } from './dom.js';
import { linearTicks, tickLabel } from './axis.js';
import { bytes, phaseLabel, unitBytes } from './format.js';
import { metric } from './render.js';
import { TERMS } from './schema.js';

// The lines of a timeline moment with their words, bottom to top (the engine's memory/memory_terms.h).
export const LINES = TERMS.memory_lines;

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// The stage the reader picked (an index into memory.stages), or null to follow the most loaded one.
let chosen = null;

export function setTimelineStage(index) {
  chosen = Number.isInteger(index) ? index : null;
}

export function timelineStage(report) {
  const stages = report.memory.stages;
  if (chosen != null && chosen < stages.length) return chosen;
  return Math.max(0, stages.findIndex((s) => s.stage === report.memory.per_device.stage));
}

// Lines that hold memory at some moment of this stage's step (the others are not drawn or listed).
const usedLines = (stage) => LINES.filter(([key]) => (stage.timeline || []).some((p) => p.lines?.[key] > 0));

// The stage picker, the chart, its legend, the peak's description and the table of the chart.
// `els`: {picker, select, chart, legend, note, table}.
export function renderTimeline(els, report, unit, width) {
  const i = timelineStage(report);
  renderPicker(els.picker, els.select, report, unit, i);
  renderTimelineChart(els.chart, report, unit, width, i);
  renderTimelineLegend(els.legend, report.memory.stages[i]);
  renderPeakNote(els.note, report, i);
  renderTimelineTable(els.table, report, unit, i);
}

function renderPicker(picker, select, report, unit, i) {
  const { stages, per_device: peak } = report.memory;
  picker.hidden = stages.length < 2;
  if (picker.hidden) {
    select.replaceChildren();
    return;
  }
  select.replaceChildren(...stages.map((s, j) => h('option', { value: j },
    `Stage ${s.stage}${s.stage === peak.stage ? ' (most loaded)' : ''}: ${bytes(s.total, unit)} ${unit}, peak at ${phaseLabel(s.peak_phase)}`)));
  select.value = String(i);
}

export function renderTimelineChart(el, report, unit, width, i) {
  const stage = report.memory.stages[i];
  const base = `memory.stages.${i}`;
  const moments = stage.timeline || [];
  const capacity = report.memory.capacity;
  const peakAt = moments.findIndex((p) => p.phase === stage.peak_phase);
  const lines = usedLines(stage);
  const fmt = (v) => `${bytes(v, unit)} ${unit}`;

  const W = Math.max(520, Math.round(width) || 640);
  const [left, right, top, plot] = [52, 14, 48, 220];
  const slot = (W - left - right) / Math.max(1, moments.length);
  const twoLines = slot < 118; // phase names on two lines where one would run into the next column's
  const H = top + plot + (twoLines ? 54 : 40);
  const max = Math.max(capacity, stage.total, ...moments.map((p) => p.allocated)) || 1;
  const y = (v) => top + plot - (Math.max(0, v) / max) * plot;
  const bar = Math.min(110, slot * 0.56);
  const cx = (j) => left + slot * (j + 0.5);
  const label = (x, yy, text, attrs = {}, ...more) => svg('text', { x: x.toFixed(1), y: yy.toFixed(1), 'text-anchor': 'middle', ...attrs }, text, ...more);

  const per = unitBytes(unit);
  const ticks = linearTicks(max / per, 5);
  const axis = svg('g', { class: 'y-axis' },
    ticks.map((t) => [
      svg('line', { class: 'grid-line', x1: left, x2: W - right, y1: y(t * per).toFixed(1), y2: y(t * per).toFixed(1) }),
      svg('text', { class: 'tick', x: left - 6, y: y(t * per).toFixed(1), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, tickLabel(t)),
    ]),
    svg('text', { class: 'tick', x: left - 6, y: top - 10, 'text-anchor': 'end' }, unit));

  const columns = moments.map((p, j) => {
    const x0 = cx(j) - bar / 2;
    const at = `${base}.timeline.${j}`;
    const name = capital(phaseLabel(p.phase));
    const isPeak = j === peakAt;
    let sum = 0;
    const segs = lines.map(([key, text]) => {
      const v = p.lines[key];
      const y1 = y(sum);
      sum += Math.max(0, v);
      const hgt = y1 - y(sum);
      return hgt > 0
        ? svg('rect', { class: `seg seg-${key}`, x: x0.toFixed(2), y: y(sum).toFixed(2), width: bar.toFixed(2), height: hgt.toFixed(2),
          'data-chart-metric': `${at}.lines.${key}`, 'data-value': v },
        svg('title', {}, `${name} · ${text}: ${fmt(v)}`))
        : null;
    });
    const parts = [
      svg('title', {}, `${name}: ${fmt(p.allocated)} allocated. ${capital(p.what || '')}`),
      segs,
    ];
    if (isPeak) {
      // Above the allocated stack: fragmentation up to reserved, then what sits outside the allocator up to total.
      const frag = y(p.allocated) - y(stage.reserved);
      const outside = y(stage.reserved) - y(stage.total);
      const top0 = y(stage.total);
      parts.push(
        frag > 0 ? svg('rect', { class: 'frag', x: x0.toFixed(2), y: y(stage.reserved).toFixed(2), width: bar.toFixed(2), height: frag.toFixed(2),
          'data-chart-metric': `${base}.other_detail.fragmentation`, 'data-value': stage.other_detail?.fragmentation },
        svg('title', {}, `Allocator fragmentation at the peak: ${fmt(stage.other_detail?.fragmentation)} (reserved ${fmt(stage.reserved)})`)) : null,
        outside > 0 ? svg('rect', { class: 'outside', x: x0.toFixed(2), y: top0.toFixed(2), width: bar.toFixed(2), height: outside.toFixed(2),
          'data-chart-metric': `${base}.other_detail.overhead`, 'data-value': stage.other_detail?.overhead },
        svg('title', {}, `Outside the allocator (CUDA context): ${fmt(stage.other_detail?.overhead)} (total ${fmt(stage.total)})`)) : null,
        label(cx(j), top0 - 31, `total ${bytes(stage.total, unit)}`, { class: 'value strong', 'data-chart-metric': `${base}.total`, 'data-value': stage.total }),
        label(cx(j), top0 - 18, `reserved ${bytes(stage.reserved, unit)}`, { class: 'value', 'data-chart-metric': `${base}.reserved`, 'data-value': stage.reserved }),
        label(cx(j), top0 - 5, `allocated ${bytes(p.allocated, unit)}`, { class: 'value', 'data-chart-metric': `${at}.allocated`, 'data-value': p.allocated }),
      );
    } else {
      parts.push(label(cx(j), y(p.allocated) - 5, bytes(p.allocated, unit), { class: 'value', 'data-chart-metric': `${at}.allocated`, 'data-value': p.allocated }));
    }
    const cut = name.lastIndexOf(' ');
    const two = twoLines && cut > 0;
    const phaseCls = `phase${isPeak ? ' is-peak' : ''}`;
    parts.push(two
      ? label(cx(j), top + plot + 16, name.slice(0, cut), { class: phaseCls }, svg('tspan', { x: cx(j).toFixed(1), dy: 14 }, name.slice(cut + 1)))
      : label(cx(j), top + plot + 16, name, { class: phaseCls }));
    if (isPeak) parts.push(label(cx(j), top + plot + (two ? 45 : 31), '▲ peak', { class: 'peak-label' }));
    return svg('g', { class: `moment${isPeak ? ' peak' : ''}`, 'data-phase': p.phase }, parts);
  });

  const capY = y(capacity);
  const summary = `Memory over the step on pipeline stage ${stage.stage}, allocated in ${unit}: ` +
    moments.map((p) => `${phaseLabel(p.phase)} ${bytes(p.allocated, unit)}`).join(', ') +
    `. Peak at ${phaseLabel(stage.peak_phase)}: reserved ${fmt(stage.reserved)}, total ${fmt(stage.total)}; capacity ${fmt(capacity)}.`;
  el.setAttribute('viewBox', `0 0 ${W} ${H}`);
  el.setAttribute('width', W);
  el.setAttribute('height', H);
  el.setAttribute('aria-label', summary);
  el.dataset.stage = String(stage.stage);
  el.replaceChildren(...[
    svg('title', {}, summary),
    svg('defs', {}, svg('pattern', { id: 'frag-hatch', patternUnits: 'userSpaceOnUse', width: 6, height: 6, patternTransform: 'rotate(45)' },
      svg('rect', { class: 'hatch-bg', width: 6, height: 6 }), svg('line', { class: 'hatch-line', x1: 0, y1: 0, x2: 0, y2: 6 }))),
    axis,
    peakAt >= 0 ? svg('rect', { class: 'peak-band', x: (cx(peakAt) - slot / 2 + 2).toFixed(1), y: 2, width: (slot - 4).toFixed(1), height: top + plot - 2 }) : null,
    ...columns,
    svg('line', { class: 'capacity', x1: left, x2: W - right, y1: capY.toFixed(1), y2: capY.toFixed(1) }),
    svg('text', { class: 'capacity-label', x: W - right, y: (capY - 5).toFixed(1), 'text-anchor': 'end' }, `capacity ${fmt(capacity)}`),
  ].filter(Boolean));
}

function renderTimelineLegend(el, stage) {
  el.replaceChildren(
    ...usedLines(stage).map(([key, label]) => h('span', { class: 'key' }, h('i', { class: `swatch seg-${key}`, 'aria-hidden': 'true' }), label)),
    h('span', { class: 'key' }, h('i', { class: 'swatch frag', 'aria-hidden': 'true' }), 'Fragmentation at the peak (reserved)'),
    h('span', { class: 'key' }, h('i', { class: 'swatch outside', 'aria-hidden': 'true' }), 'Outside the allocator: CUDA context (total)'),
    h('span', { class: 'key' }, h('i', { class: 'swatch capacity', 'aria-hidden': 'true' }), 'Device capacity'),
  );
}

function renderPeakNote(el, report, i) {
  const stage = report.memory.stages[i];
  const peak = (stage.timeline || []).find((p) => p.phase === stage.peak_phase);
  el.replaceChildren(
    h('strong', {}, `Peak on stage ${stage.stage}: ${phaseLabel(stage.peak_phase)}`),
    peak?.what ? ` (${peak.what}).` : '.',
    ' Reserved (with the caching allocator\u2019s fragmentation) and total (with the CUDA context) are drawn at the peak.',
  );
}

// The chart as a table (inside a closed <details>): one row per moment (with what is alive then),
// one column per line used.
export function renderTimelineTable(table, report, unit, i) {
  const stage = report.memory.stages[i];
  const base = `memory.stages.${i}`;
  const lines = usedLines(stage);
  const col = (text) => h('th', { scope: 'col', class: 'num' }, text);
  table.replaceChildren(
    h('caption', { class: 'sr-only' }, `Memory allocated at each moment of the step on pipeline stage ${stage.stage}, in ${unit}`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Moment (what is alive)'), col(`Allocated (${unit})`),
      lines.map(([, label]) => col(`${label} (${unit})`)))),
    h('tbody', {}, (stage.timeline || []).map((p, j) => {
      const at = `${base}.timeline.${j}`;
      const isPeak = p.phase === stage.peak_phase;
      return h('tr', { class: isPeak ? 'peak' : null, 'data-phase': p.phase },
        h('th', { scope: 'row' }, capital(phaseLabel(p.phase)), isPeak ? h('strong', {}, ' (peak)') : null,
          p.what ? h('small', { class: 'what' }, p.what) : null),
        metric(report, `${at}.allocated`, unit, 'td', { class: 'total' }),
        lines.map(([key]) => metric(report, `${at}.lines.${key}`, unit, 'td')));
    })),
  );
}
