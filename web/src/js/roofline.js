// A log-log roofline: the memory roof (slope roofline.hbm_bytes_per_second) and the compute
// roof (roofline.peak_flops) meeting at roofline.ridge_intensity, and one dot per op row of
// report.modules with forward FLOPs: x = fwd_intensity, y = fwd_flops_per_second (both from the engine).
import { h, svg } from './dom.js';
import { duration, fixed, short } from './format.js';
import { metric } from './render.js';

const log = Math.log10;

// Width in pixels of a text in `font` (a canvas measures it without touching the layout).
let canvas;
function textWidth(font) {
  canvas ??= document.createElement('canvas').getContext('2d');
  return (text) => {
    canvas.font = font;
    return canvas.measureText(text).width;
  };
}

// Whether the reader opened the ops table (kept across re-renders while typing elsewhere).
let tableOpen = false;

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

  // Labels: measured text boxes placed around their dot (beside it first, then farther out with a
  // leader line), never over a dot, another label, the roof's labels or outside the plot. The ops
  // that take longest are placed first; one with no free spot keeps its dot and tooltip, and every
  // op is in the table under the chart.
  // The chart's text is 12px (style.css: .chart-scroll > svg) in the page's font.
  const measure = textWidth(`12px ${getComputedStyle(box).fontFamily}`);
  const TH = 13;
  const boxOf = (text, x, y, anchor = 'start') => {
    const w = measure(text) + 2;
    return [anchor === 'end' ? x - w : anchor === 'middle' ? x - w / 2 : x, y - TH / 2, w, TH];
  };
  const ridgeText = `ridge ${fixed(ridge, 0)} FLOP/byte`;
  const ridgeAnchor = X(ridge) + 4 + measure(ridgeText) > W - right ? 'end' : 'start';
  const ridgeX = X(ridge) + (ridgeAnchor === 'end' ? -4 : 4);
  const peakText = `peak ${tf(peak)} TFLOP/s`;
  const hbmText = `HBM ${fixed(bw / 1e12, 2)} TB/s`;
  const fixedLabels = [
    [ridgeText, ridgeX, H - bottom - 10, ridgeAnchor],
    [peakText, W - right - 4, Y(peak) - 10, 'end'],
    [hbmText, X(start) + 6, Y(bw * start) + 12, 'start'],
  ];
  const taken = [...pts.map((p) => [X(p.ai) - 6, Y(p.perf) - 6, 12, 12]), ...fixedLabels.map(([t, x, y, a]) => boxOf(t, x, y, a))];
  const free = ([a, b, w, hh]) => a >= left + 1 && a + w <= W - right - 1 && b >= top + 1 && b + hh <= H - bottom - 1 &&
    !taken.some(([c, d, v, k]) => a < c + v && c < a + w && b < d + k && d < b + hh);
  const names = pts.map((p) => p.m.name);
  const nameOf = (p) => (names.filter((n) => n === p.m.name).length > 1 ? p.m.path.split('/').slice(-2).join('/') : p.m.name);
  // A label right or left of its dot and level with it needs no line; any other spot gets a leader
  // from the dot's edge to the nearest point of the label's box, which must not cross a dot or a label.
  const leaderOf = (cx, cy, [bx, by, w, hh]) => {
    const [lx, ly] = [Math.min(Math.max(cx, bx), bx + w), Math.min(Math.max(cy, by), by + hh)];
    const len = Math.hypot(lx - cx, ly - cy);
    const level = cy >= by && cy <= by + hh;
    return (level ? len > 9 : len > 6) ? [cx + ((lx - cx) * 5.5) / len, cy + ((ly - cy) * 5.5) / len, lx, ly] : null;
  };
  const distance = (px, py, [bx, by, w, hh]) => Math.hypot(px - Math.min(Math.max(px, bx), bx + w), py - Math.min(Math.max(py, by), by + hh));
  const crosses = ([x1, y1, x2, y2], own) => {
    const steps = Math.ceil(Math.hypot(x2 - x1, y2 - y1) / 2);
    for (let k = 1; k < steps; k += 1) {
      const [px, py] = [x1 + ((x2 - x1) * k) / steps, y1 + ((y2 - y1) * k) / steps];
      if (taken.some((b, j) => j !== own && px > b[0] && px < b[0] + b[2] && py > b[1] && py < b[1] + b[3])) return true;
    }
    return false;
  };
  const placed = new Map();
  for (const p of [...pts].sort((a, b) => b.m.fwd_seconds - a.m.fwd_seconds)) {
    const [cx, cy] = [X(p.ai), Y(p.perf)];
    const text = nameOf(p);
    const w = measure(text) + 2;
    // Nearest first: beside the dot, then diagonals, above and below, at growing distances.
    const spots = [8, 14, 22, 32, 44, 58, 76].flatMap((d) => {
      const e = d * 0.7;
      return [[cx + d, cy - TH / 2], [cx - d - w, cy - TH / 2], [cx + e, cy - e - TH], [cx + e, cy + e], [cx - e - w, cy - e - TH],
        [cx - e - w, cy + e], [cx - w / 2, cy - d - TH], [cx - w / 2, cy + d]].map(([bx, by]) => [bx, by, w, TH]);
    });
    const own = pts.indexOf(p);
    // A label reads as its dot's when no other dot is about as near, or when a visible leader says so.
    const clear = (b) => {
      const near = distance(cx, cy, b);
      const line = leaderOf(cx, cy, b);
      const other = Math.min(Infinity, ...pts.filter((q) => q !== p).map((q) => distance(X(q.ai), Y(q.perf), b)));
      return line ? !crosses(line, own) && (other > near + 8 || Math.hypot(line[2] - line[0], line[3] - line[1]) >= 10) : other > near + 8;
    };
    const spot = spots.find((b) => free(b) && clear(b));
    if (!spot) continue;
    taken.push(spot);
    placed.set(p, { text, spot, leader: leaderOf(cx, cy, spot) });
  }
  const labels = [...placed.entries()].map(([p, { text, spot: [bx, by, , hh], leader }]) => [
    leader ? svg('line', { class: 'leader', x1: leader[0].toFixed(1), y1: leader[1].toFixed(1), x2: leader[2].toFixed(1), y2: leader[3].toFixed(1) }) : null,
    svg('text', { class: 'op-label', x: (bx + 1).toFixed(1), y: (by + hh / 2).toFixed(1), 'dominant-baseline': 'middle', 'data-path': p.m.path }, text),
  ]);

  box.replaceChildren(svg('svg', { role: 'img', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-labelled': placed.size },
    svg('title', {}, 'Roofline: achieved FLOP/s against arithmetic intensity, log-log'),
    xs.map(({ v, label }) => [svg('line', { class: 'grid-line', x1: X(v), x2: X(v), y1: top, y2: H - bottom }),
      label ? svg('text', { class: 'tick', x: X(v), y: H - bottom + 14, 'text-anchor': 'middle' }, short(v)) : null]),
    ys.map(({ v, label }) => [svg('line', { class: 'grid-line', x1: left, x2: W - right, y1: Y(v), y2: Y(v) }),
      label ? svg('text', { class: 'tick', x: left - 6, y: Y(v), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, short(v / 1e12)) : null]),
    svg('rect', { class: 'frame', x: left, y: top, width: W - left - right, height: H - top - bottom }),
    svg('text', { class: 'axis', x: (left + W - right) / 2, y: H - 6, 'text-anchor': 'middle' }, 'Arithmetic intensity (FLOP/byte)'),
    svg('text', { class: 'axis', transform: `translate(14 ${(top + H - bottom) / 2}) rotate(-90)`, 'text-anchor': 'middle' }, 'Achieved TFLOP/s'),
    svg('line', { class: 'ridge', x1: X(ridge), x2: X(ridge), y1: Y(peak), y2: H - bottom }),
    svg('path', { class: 'roof', d: roof }),
    fixedLabels.map(([text, lx, ly, anchor], k) => svg('text', { class: k ? 'label' : 'tick', x: lx.toFixed(1), y: ly.toFixed(1),
      'text-anchor': anchor, 'dominant-baseline': 'middle' }, text)),
    labels,
    pts.map((p) => svg('circle', { class: `dot bound-${p.m.bound}${placed.has(p) ? '' : ' unlabelled'}`, cx: X(p.ai).toFixed(1), cy: Y(p.perf).toFixed(1), r: 5, 'data-path': p.m.path },
      svg('title', {}, `${p.m.path}: ${fixed(p.ai, 1)} FLOP/byte, ${tf(p.perf)} TFLOP/s achieved, ${p.m.bound}-bound`)))),
  opsTable(report, ops));
  const hidden = pts.length - placed.size;
  legend.replaceChildren(
    h('span', { class: 'key' }, h('i', { class: 'swatch bound-compute', 'aria-hidden': 'true' }), 'compute-bound'),
    h('span', { class: 'key' }, h('i', { class: 'swatch bound-memory', 'aria-hidden': 'true' }), 'memory-bound'),
    h('span', { class: 'key muted' }, 'line: the roof (HBM bandwidth, then peak FLOP/s)'),
    h('span', { class: 'key muted' }, hidden > 0
      ? `${hidden} of ${pts.length} dots unnamed for lack of room (outlined; the longest ops are named first): hover a dot, or see the table`
      : 'every op named; the table below lists their figures'));
}

// Every op on the chart with its report figures: the names the chart had no room for are here too.
function opsTable(report, ops) {
  const m = (i, field, fmt) => metric(report, `modules.${i}.${field}`, fmt, 'td');
  const details = h('details', { class: 'as-table', open: tableOpen, ontoggle: (e) => { tableOpen = e.currentTarget.open; } },
    h('summary', {}, 'The ops as a table'),
    h('div', { class: 'scroll' }, h('table', { id: 'roofline-table' },
      h('caption', { class: 'sr-only' }, 'Forward pass of each op on the roofline, one microbatch, per device'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Op'), h('th', { scope: 'col', class: 'num' }, 'Intensity (FLOP/byte)'),
        h('th', { scope: 'col', class: 'num' }, 'Achieved (TFLOP/s)'), h('th', { scope: 'col', class: 'num' }, 'Forward time'), h('th', { scope: 'col' }, 'Bound'))),
      h('tbody', {}, ops.map(([op, i]) => h('tr', { 'data-path': op.path },
        h('th', { scope: 'row', class: 'op' }, op.path),
        m(i, 'fwd_intensity', (v) => fixed(v, 1)),
        m(i, 'fwd_flops_per_second', (v) => fixed(v / 1e12, 1)),
        m(i, 'fwd_seconds', duration),
        h('td', {}, op.bound)))))));
  return details;
}
