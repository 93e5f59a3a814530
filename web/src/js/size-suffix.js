// "4k", "32K", "300B": sizes are written with a suffix, which a number input refuses (typed into one, "4k" became
// 4 without a word). A suffix typed after a number multiplies it: in an integer field (sequence length, batch,
// degrees) k and M are binary (4k = 4,096, as contexts are named); in a decimal field (training tokens, a price)
// k, M, B (or G) and T are 10^3, 10^6, 10^9 and 10^12. A chunk of its own, fetched on the first such key (page budget).
const BINARY = { k: 2 ** 10, m: 2 ** 20 };
const DECIMAL = { k: 1e3, m: 1e6, b: 1e9, g: 1e9, t: 1e12 };

// The value `text` stands for with `key` typed after it, or null when the key is no suffix there.
export function withSuffix(text, key, integer) {
  const factor = (integer ? BINARY : DECIMAL)[key.toLowerCase()];
  const n = Number(text);
  if (!factor || text.trim() === '' || !Number.isFinite(n)) return null;
  const v = n * factor;
  return integer ? (Number.isSafeInteger(Math.round(v)) ? Math.round(v) : null) : v;
}
