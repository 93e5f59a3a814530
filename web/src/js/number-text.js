// Numbers as en-US text without Intl. Chromium's first Intl.NumberFormat costs about 20 ms of the main
// thread here (V8 initialises ICU's number formatting), on the way to the first result (page budget,
// docs/performance.md). These give exactly what Intl.NumberFormat('en-US', options).format(x) gives for the options
// the page uses (tests/web/number-text.test.mjs compares them on random and tie values):
//   numberText(x, { minimumFractionDigits, maximumFractionDigits })   fixed decimals, "1,234.5"
//   numberText(x, { maximumSignificantDigits })                       "0.000123", "1,230,000"
//   numberText(x, { ..., currency: true })                            "$1,234", "-$12.35" (USD)
//   compactText(x, maximumSignificantDigits)                          "1.23K", "70.6B", "1000T"
// Like Intl, they round the shortest decimal that reads back as x (String(x)), halves away from zero,
// not the binary value (toFixed rounds 1.005 to "1.00"; Intl and these to "1.01").

// |x| as decimal digits without leading zeros and the place of the decimal point: |x| = 0.digits × 10^point.
function decimal(x) {
  const [mantissa, exponent = '0'] = String(Math.abs(x)).split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  const all = whole + fraction;
  const lead = all.length - all.replace(/^0+/, '').length;
  const digits = all.slice(lead).replace(/0+$/, '');
  return { digits, point: digits ? whole.length - lead + Number(exponent) : 0 };
}

// Keeps `keep` digits (fewer than none: zero), a dropped half or more rounding the last kept digit up.
function round({ digits, point }, keep) {
  if (keep >= digits.length) return { digits, point };
  if (keep < 0) return { digits: '', point: 0 };
  let kept = digits.slice(0, keep);
  if (digits[keep] >= '5') {
    const nines = kept.length - kept.replace(/9+$/, '').length;
    kept = kept.slice(0, kept.length - nines);
    if (kept) kept = kept.slice(0, -1) + String(Number(kept.at(-1)) + 1);
    else {
      kept = '1'; // 0.96 kept as one digit: 1.0, a place further left
      point += 1;
    }
  }
  kept = kept.replace(/0+$/, '');
  return { digits: kept, point: kept ? point : 0 };
}

// Thousands separators, from `least` integer digits on (standard notation: 4, "1,000"; compact: 5).
function group(integer, least = 4) {
  if (integer.length < least) return integer;
  return integer.replace(/\B(?=(\d{3})+$)/g, ',');
}

// The digits as text with at least `minFraction` decimals.
function place({ digits, point }, minFraction, least) {
  const integer = point > 0 ? digits.slice(0, point).padEnd(point, '0') : '0';
  const fraction = (point < 0 ? '0'.repeat(-point) + digits : digits.slice(Math.max(point, 0))).padEnd(minFraction, '0');
  return group(integer, least) + (fraction ? `.${fraction}` : '');
}

const signed = (x, text, prefix = '') => (x < 0 || Object.is(x, -0) ? `-${prefix}${text}` : `${prefix}${text}`);

export function numberText(x, { minimumFractionDigits = 0, maximumFractionDigits = 3, maximumSignificantDigits, currency = false } = {}) {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return signed(x, '∞');
  const d = decimal(x);
  const rounded = maximumSignificantDigits ? round(d, maximumSignificantDigits) : round(d, d.point + maximumFractionDigits);
  const text = place(rounded, maximumSignificantDigits ? 0 : minimumFractionDigits);
  return signed(x, text, currency ? '$' : '');
}

// Compact notation: thousands (K), millions (M), billions (B), trillions (T) past 999; beyond that, trillions.
const SUFFIXES = ['', 'K', 'M', 'B', 'T'];
export function compactText(x, maximumSignificantDigits = 3) {
  if (!Number.isFinite(x)) return numberText(x);
  const rounded = round(decimal(x), maximumSignificantDigits);
  const k = rounded.digits ? Math.min(Math.max(Math.floor((rounded.point - 1) / 3), 0), SUFFIXES.length - 1) : 0;
  return signed(x, place({ digits: rounded.digits, point: rounded.point - 3 * k }, 0, 5) + SUFFIXES[k]);
}
