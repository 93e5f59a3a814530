// Display formatting only (unit conversion, separators); it never derives a figure. Anything that
// is not a finite number shows as an em dash, so NaN/Infinity/undefined never reach the page.
const DIVISOR = { GiB: 2 ** 30, GB: 1e9 };
const fixed2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const tiny = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });
const ok = (v) => typeof v === 'number' && Number.isFinite(v);

// Bytes in GiB or GB, two decimals; values too small for that keep three significant digits.
export function bytes(value, unit) {
  if (!ok(value)) return '—';
  const v = value / DIVISOR[unit];
  return v !== 0 && Math.abs(v) < 0.005 ? tiny.format(v) : fixed2.format(v);
}

export const count = (value) => (ok(value) ? plain.format(value) : '—');
