// Axis layout shared by the time charts: "nice" tick positions and the time unit an axis reads
// in. Layout only: the values placed on an axis always come from the report.
import { svg } from './dom.js';
import { numberText } from './number-text.js';

// About `n` ticks from 0 to `max` at 1, 2 or 5 × 10^k steps.
export function linearTicks(max, n = 5) {
  if (!(max > 0) || !Number.isFinite(max)) return [0];
  const raw = max / n;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw);
  const ticks = [];
  for (let i = 0; i * step <= max * (1 + 1e-9); i += 1) ticks.push(i * step);
  return ticks;
}

// The unit a time axis reads in, from the largest value on it (seconds).
export function timeUnit(maxSeconds) {
  if (maxSeconds >= 1) return { unit: 's', scale: 1 };
  if (maxSeconds >= 1e-3) return { unit: 'ms', scale: 1e3 };
  return { unit: 'µs', scale: 1e6 };
}

export const tickLabel = (v) => numberText(v, { maximumSignificantDigits: 4 });

// A horizontal time axis at y from x0 to x1 covering [0, max] seconds: grid lines up to `top`,
// tick labels below, the unit after the last label.
export function timeAxis(max, x0, x1, y, top) {
  const { unit, scale } = timeUnit(max);
  const x = (s) => x0 + (s / max) * (x1 - x0);
  const ticks = linearTicks(max * scale, Math.max(2, Math.floor((x1 - x0) / 70)));
  return svg('g', { class: 'time-axis' }, ticks.map((t, i) => [
    svg('line', { class: 'grid-line', x1: x(t / scale).toFixed(1), x2: x(t / scale).toFixed(1), y1: top, y2: y }),
    svg('text', { class: 'tick', x: x(t / scale).toFixed(1), y: y + 14, 'text-anchor': i === 0 ? 'start' : 'middle' },
      i === ticks.length - 1 ? `${tickLabel(t)} ${unit}` : tickLabel(t)),
  ]));
}
