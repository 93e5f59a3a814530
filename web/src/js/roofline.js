// A log-log roofline: the memory roof (slope roofline.hbm_bytes_per_second) and the compute
// roof (roofline.peak_flops) meeting at roofline.ridge_intensity, and one dot per op row of
// report.modules with forward FLOPs: x = fwd_intensity, y = fwd_flops_per_second (both from the engine).
import { h, svg } from './dom.js';
import { fixed, short } from './format.js';

const log = Math.log10;

export function renderRoofline(box, legend, report, width) {
  const rf = report.roofline;
  const ops = (report.modules || []).map((m, i) => [m, i])
    .filter(([m]) => m.kind === 'op' && m.fwd_flops > 0 && m.fwd_bytes > 0 && m.fwd_seconds > 0);
  if (!(rf?.peak_flops > 0 && rf.hbm_bytes_per_second > 0 && rf.ridge_intensity > 0) || !ops.length) {
    box.replaceChildren(h('p', { class: 'muted' }, 'No op with forward FLOPs to place on a roofline.'));
    legend.replaceChildren();
    return;
  }
  const pts = ops.map(([m, i]) => ({ m, i, ai: m.fwd_intensity, perf: m.fwd_flops_per_second }));
  const { peak_flops: peak, hbm_bytes_per_second: bw, ridge_intensity: ridge } = rf;
  // Log bounds a little beyond the dots, the ridge and the peak; at least two decades each way.
  const ais = [ridge, ...pts.map((p) => p.ai)];
  let [x0, x1] = [log(Math.min(...ais)) - 0.3, log(Math.max(...ais)) + 0.3];
  if (x1 - x0 < 2) [x0, x1] = [(x0 + x1) / 2 - 1, (x0 + x1) / 2 + 1];
  const y1 = log(peak) + 0.2;
  const y0 = Math.min(log(Math.min(...pts.map((p) => p.perf))) - 0.3, y1 - 2);
  const W = Math.max(360, Math.round(width) || 640);
  const H = 320;
  const [left, right, top, bottom] = [58, 16, 14, 44];
  const X = (v) => left + ((log(v) - x0) / (x1 - x0)) * (W - left - right);
  const Y = (v) => top + ((y1 - log(v)) / (y1 - y0)) * (H - top - bottom);
  // Grid at 1, 2 and 5 × 10^k; labels on whole decades, and on 2 and 5 too when the span is short.
  const decades = (a, b) => Array.from({ length: Math.floor(b) - Math.floor(a) + 1 }, (_, k) => Math.floor(a) + k)
    .flatMap((e) => [1, 2, 5].map((m) => ({ v: m * 10 ** e, label: m === 1 || b - a < 3 })))
    .filter(({ v }) => log(v) >= a - 1e-9 && log(v) <= b + 1e-9);
  const xs = decades(x0, x1);
  const ys = decades(y0, y1);

  // Memory roof from where it enters the plot to the ridge, then the flat compute roof.
  const start = Math.max(10 ** x0, 10 ** y0 / bw);
  const roof = `M${X(start).toFixed(1)} ${Y(bw * start).toFixed(1)}L${X(ridge).toFixed(1)} ${Y(peak).toFixed(1)}L${X(10 ** x1).toFixed(1)} ${Y(peak).toFixed(1)}`;
  const tf = (flops) => fixed(flops / 1e12, 1);

  // Op names beside their dots (right, else left), skipped where they would cover a dot or a name.
  const boxes = pts.map((p) => [X(p.ai) - 5, Y(p.perf) - 5, 10, 10]);
  const free = ([a, b, w, hh]) => a >= left && a + w <= W - right &&
    !boxes.some(([c, d, v, k]) => a < c + v && c < a + w && b < d + k && d < b + hh);
  const labels = pts.map((p) => {
    const w = p.m.name.length * 6.2;
    const spot = [[X(p.ai) + 8, Y(p.perf) - 6, w, 12], [X(p.ai) - 8 - w, Y(p.perf) - 6, w, 12]].find(free);
    if (!spot) return null;
    boxes.push(spot);
    return svg('text', { class: 'tick', x: spot[0].toFixed(1), y: (spot[1] + 6).toFixed(1), 'dominant-baseline': 'middle' }, p.m.name);
  });

  box.replaceChildren(svg('svg', { role: 'img', width: W, height: H, viewBox: `0 0 ${W} ${H}` },
    svg('title', {}, 'Roofline: achieved FLOP/s against arithmetic intensity, log-log'),
    xs.map(({ v, label }) => [svg('line', { class: 'grid-line', x1: X(v), x2: X(v), y1: top, y2: H - bottom }),
      label ? svg('text', { class: 'tick', x: X(v), y: H - bottom + 14, 'text-anchor': 'middle' }, short(v)) : null]),
    ys.map(({ v, label }) => [svg('line', { class: 'grid-line', x1: left, x2: W - right, y1: Y(v), y2: Y(v) }),
      label ? svg('text', { class: 'tick', x: left - 6, y: Y(v), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, short(v / 1e12)) : null]),
    svg('rect', { class: 'frame', x: left, y: top, width: W - left - right, height: H - top - bottom }),
    svg('text', { class: 'axis', x: (left + W - right) / 2, y: H - 6, 'text-anchor': 'middle' }, 'Arithmetic intensity (FLOP/byte)'),
    svg('text', { class: 'axis', transform: `translate(14 ${(top + H - bottom) / 2}) rotate(-90)`, 'text-anchor': 'middle' }, 'Achieved TFLOP/s'),
    svg('line', { class: 'ridge', x1: X(ridge), x2: X(ridge), y1: Y(peak), y2: H - bottom }),
    svg('text', { class: 'tick', x: X(ridge) + 4, y: H - bottom - 6 }, `ridge ${fixed(ridge, 0)} FLOP/byte`),
    svg('path', { class: 'roof', d: roof }),
    svg('text', { class: 'label', x: W - right - 4, y: Y(peak) - 6, 'text-anchor': 'end' }, `peak ${tf(peak)} TFLOP/s`),
    svg('text', { class: 'label', x: X(start) + 6, y: Y(bw * start) + 16 }, `HBM ${fixed(bw / 1e12, 2)} TB/s`),
    labels,
    pts.map((p) => svg('circle', { class: `dot bound-${p.m.bound}`, cx: X(p.ai).toFixed(1), cy: Y(p.perf).toFixed(1), r: 5, 'data-path': p.m.path },
      svg('title', {}, `${p.m.path}: ${fixed(p.ai, 1)} FLOP/byte, ${tf(p.perf)} TFLOP/s achieved, ${p.m.bound}-bound`)))));
  legend.replaceChildren(
    h('span', { class: 'key' }, h('i', { class: 'swatch bound-compute', 'aria-hidden': 'true' }), 'compute-bound'),
    h('span', { class: 'key' }, h('i', { class: 'swatch bound-memory', 'aria-hidden': 'true' }), 'memory-bound'),
    h('span', { class: 'key muted' }, 'line: the roof (HBM bandwidth, then peak FLOP/s)'));
}
