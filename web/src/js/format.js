// Display formatting only (unit conversion, separators); it never derives a figure. Anything that
// is not a finite number shows as an em dash, so NaN/Infinity/undefined never reach the page.
// Numbers become text through number-text.js: Intl.NumberFormat's en-US output without its start-up cost.
import { compactText, numberText } from './number-text.js';
import { TERMS } from './schema.js';

const DIVISOR = { GiB: 2 ** 30, GB: 1e9 };
const formatter = (options) => ({ format: (v) => numberText(v, options) });
const fixed2 = formatter({ minimumFractionDigits: 2, maximumFractionDigits: 2 });
const tiny = formatter({ maximumSignificantDigits: 3 });
const plain = formatter({ maximumFractionDigits: 6 });
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
  (ok(value) ? numberText(value, { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '—');

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

// Bytes with their unit in the text, in the page's family (binary: B, KiB, MiB, GiB; decimal: B, kB,
// MB, GB), the largest unit that keeps the value at 1 or more ("64.00 MiB", "7.48 GiB", "512 B"):
// for columns whose values span kilobytes to gigabytes, where one unit in the header would misread.
export function bytesUnit(value, unit) {
  if (!ok(value)) return '—';
  const base = unit === 'GB' ? 1000 : 1024;
  const names = unit === 'GB' ? ['B', 'kB', 'MB', 'GB'] : ['B', 'KiB', 'MiB', 'GiB'];
  const a = Math.abs(value);
  const i = a >= base ** 3 ? 3 : a >= base ** 2 ? 2 : a >= base ? 1 : 0;
  return `${i ? fixed2.format(value / base ** i) : plain.format(value)}\u00a0${names[i]}`;
}

// A large count the way people say it: up to a million with separators ("524,288", "39,996",
// "12.3"), beyond in millions, billions or trillions with three significant digits ("1.23 M",
// "70.6 B", "15 T"). Display only: data-value keeps the exact value (callers put it in a title).
const SCALES = [[1e12, 'T'], [1e9, 'B'], [1e6, 'M']];
export function large(value) {
  if (!ok(value)) return '—';
  const a = Math.abs(value);
  if (a < 1e6) return a >= 1000 ? fixed(value, 0) : tiny.format(value);
  let k = SCALES.findIndex(([s]) => a >= s);
  // 999.7 M rounds to "1,000 M": say "1 B" instead.
  if (k > 0 && Number((a / SCALES[k][0]).toPrecision(3)) >= 1000) k -= 1;
  const [scale, name] = SCALES[k];
  return `${tiny.format(value / scale)}\u00a0${name}`;
}

// US dollars: whole dollars from $100 up ("$1,234"), cents below ("$12.35").
const dollars = (digits, most = digits) => formatter({ currency: true, minimumFractionDigits: digits, maximumFractionDigits: most });
const [whole$, cents$, price$] = [dollars(0), dollars(2), dollars(2, 4)];
export const usd = (value) => (ok(value) ? (Math.abs(value) >= 100 ? whole$ : cents$).format(value) : '—');
// A price per GPU-hour keeps its cents and up to four decimals as typed ("$2.50", "$0.0125").
export const usdPrice = (value) => (ok(value) ? price$.format(value) : '—');

// A short number for axis ticks: 1,000 -> "1K", 0.001 -> "0.001".
export const short = (value) => (ok(value) ? compactText(value, 3) : '—');

// A memory-timeline phase of the report in words ("forward_end" -> "end of forward": the engine's
// memory/memory_terms.h, through js/schema.js); unknown names lose their underscores.
const PHASES = Object.fromEntries(TERMS.memory_phases);
export const phaseLabel = (phase) => PHASES[phase] || String(phase ?? '').replaceAll('_', ' ');
