// web/src/js/number-text.js against Intl.NumberFormat('en-US'), which it stands in for on the page (its first
// use costs ~20 ms in Chromium): the same text for every option the page uses, on random values across 36
// orders of magnitude, on ties (1.005, 0.125, 999.995), on zero and -0 and on the extremes; in Node and in
// the Chromium the page runs in (two ICU builds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from './browser.mjs';
import { compactText, numberText } from '../../web/src/js/number-text.js';

// The options format.js and axis.js pass (currency: Intl's style 'currency', currency 'USD').
const OPTIONS = [
  {},
  { maximumFractionDigits: 6 },
  { maximumSignificantDigits: 3 },
  { maximumSignificantDigits: 4 },
  ...[0, 1, 2, 3, 4].map((d) => ({ minimumFractionDigits: d, maximumFractionDigits: d })),
  { currency: true, minimumFractionDigits: 0, maximumFractionDigits: 0 },
  { currency: true, minimumFractionDigits: 2, maximumFractionDigits: 2 },
  { currency: true, minimumFractionDigits: 2, maximumFractionDigits: 4 },
];
const COMPACT_DIGITS = 3;

function values(count, seed = 7) {
  let s = seed;
  const random = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const list = [0, -0, 1, -1, 0.5, 1.5, 2.5, 0.005, 1.005, 9.995, 99.95, 999.995, 0.125, 0.0005, 0.95, 0.9999,
    999999.5, 9999999, 1e21, 1e22, 1.5e-7, 123456789.98765432, Number.MIN_VALUE, Number.MAX_VALUE, 2 ** 53 + 2];
  for (let i = 0; i < count; i += 1) {
    let v = random() * 10 ** (Math.floor(random() * 36) - 14);
    if (i % 3 === 0) v = Math.round(v * 1000) / 1000 + 0.0005; // a tie at the fourth decimal, as written
    if (i % 5 === 0) v = (Math.floor(random() * 2000) / 8) * 10 ** (Math.floor(random() * 8) - 4); // exact halves
    list.push(i % 2 ? -v : v);
  }
  return list;
}

// Every value under every option where number-text and Intl's formats differ: {value, options, ours, intl}.
// `intlText(k, v)`: Intl's text for option k (OPTIONS.length: compact).
function differences(list, intlText) {
  const found = [];
  for (const [i, v] of list.entries()) {
    OPTIONS.forEach((o, k) => {
      const [ours, intl] = [numberText(v, o), intlText(i, k)];
      if (ours !== intl) found.push({ value: v, options: o, ours, intl });
    });
    const [ours, intl] = [compactText(v, COMPACT_DIGITS), intlText(i, OPTIONS.length)];
    if (ours !== intl) found.push({ value: v, options: 'compact', ours, intl });
  }
  return found;
}

// Intl's text of each value under each option (the last: compact), in the JavaScript engine it runs in.
function intlTexts(list, options, compactDigits) {
  const make = ({ currency, ...rest }) => new Intl.NumberFormat('en-US', currency ? { ...rest, style: 'currency', currency: 'USD' } : rest);
  const formats = [...options.map(make), new Intl.NumberFormat('en-US', { notation: 'compact', maximumSignificantDigits: compactDigits })];
  return list.map((v) => formats.map((f) => f.format(v)));
}

test('number-text gives what Intl.NumberFormat gives in Node, on 20,000 values under each option', () => {
  const list = values(20000);
  const texts = intlTexts(list, OPTIONS, COMPACT_DIGITS);
  assert.equal(texts[1][0], '-0'); // -0 reached Intl as -0
  assert.deepEqual(differences(list, (i, k) => texts[i][k]).slice(0, 10), []);
});

test('number-text gives what Intl.NumberFormat gives in Chromium, on 5,000 values under each option', async () => {
  const list = values(5000, 11);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const texts = await page.evaluate(`(${intlTexts})(${JSON.stringify(list.map((v) => (Object.is(v, -0) ? "-0" : String(v))))}.map(Number), ${JSON.stringify(OPTIONS)}, ${COMPACT_DIGITS})`);
    assert.equal(texts.length, list.length);
    assert.equal(texts[1][0], '-0');
    assert.deepEqual(differences(list, (i, k) => texts[i][k]).slice(0, 10), []);
  } finally {
    await browser.close();
  }
});
