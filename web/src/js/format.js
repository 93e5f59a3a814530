// Display formatting only (unit conversion, separators); it never derives a figure. Anything that
// is not a finite number shows as an em dash, so NaN/Infinity/undefined never reach the page.
const DIVISOR = { GiB: 2 ** 30, GB: 1e9 };
const fixed2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const tiny = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });
const ok = (v) => typeof v === 'number' && Number.isFinite(v);

// Bytes in one `unit` (for placing axis ticks at round values of the unit).
export const unitBytes = (unit) => DIVISOR[unit];

// Bytes in GiB or GB, two decimals; values too small for that keep three significant digits.
export function bytes(value, unit) {
  if (!ok(value)) return '—';
  const v = value / DIVISOR[unit];
  return v !== 0 && Math.abs(v) < 0.005 ? tiny.format(v) : fixed2.format(v);
}

export const count = (value) => (ok(value) ? plain.format(value) : '—');

// Fixed decimals with separators ("41,884", "283.47").
export const fixed = (value, digits = 2) =>
  (ok(value) ? new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value) : '—');

// A fraction as a percentage ("28.7 %").
export const percent = (fraction, digits = 1) => (ok(fraction) ? `${fixed(fraction * 100, digits)} %` : '—');

// Seconds in the unit that reads best ("1.56 s", "314 ms", "52.4 µs"), three significant digits or so.
export function duration(seconds) {
  if (!ok(seconds)) return '—';
  const a = Math.abs(seconds);
  const [v, u] = a >= 1 || a === 0 ? [seconds, 's'] : a >= 1e-3 ? [seconds * 1e3, 'ms'] : [seconds * 1e6, 'µs'];
  const d = Math.abs(v) >= 100 || v === 0 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${fixed(v, d)} ${u}`;
}

// Seconds shown in milliseconds (table columns say "ms" in their header).
export const ms = (seconds) => {
  if (!ok(seconds)) return '—';
  const v = seconds * 1e3;
  return v !== 0 && Math.abs(v) < 0.005 ? tiny.format(v) : fixed2.format(v);
};

// Bytes in the page unit, or with an explicit binary/decimal suffix when below one unit
// ("64.00 MiB", "16.00 KiB"): for message sizes, which are often far below a GiB.
export function bytesSmall(value, unit) {
  if (!ok(value)) return '—';
  const base = unit === 'GB' ? 1000 : 1024;
  const names = unit === 'GB' ? ['B', 'kB', 'MB'] : ['B', 'KiB', 'MiB'];
  if (Math.abs(value) >= base ** 3) return bytes(value, unit);
  const i = Math.abs(value) >= base ** 2 ? 2 : Math.abs(value) >= base ? 1 : 0;
  return `${i ? fixed2.format(value / base ** i) : plain.format(value)} ${names[i]}`;
}

// A short number for axis ticks: 1,000 -> "1k", 0.001 -> "0.001".
export const short = (value) =>
  (ok(value) ? new Intl.NumberFormat('en-US', { notation: 'compact', maximumSignificantDigits: 3 }).format(value) : '—');

// A memory-timeline phase of the report in words ("forward_end" -> "end of forward"); unknown
// names lose their underscores.
const PHASES = {
  step_start: 'step start',
  forward_end: 'end of forward',
  loss_backward: 'loss backward',
  layer_backward: 'layer backward',
  optimizer_step: 'optimizer step',
};
export const phaseLabel = (phase) => PHASES[phase] || String(phase ?? '').replaceAll('_', ' ');
