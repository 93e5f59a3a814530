// JSON from text the page does not control (a #scenario= link; a config.json goes to the engine as text).
// JSON.parse stores every key as an own data property (a "__proto__" key is data, never the
// prototype), so callers read objects through Object.keys/entries and Object.hasOwn only, never
// by plain lookups that could reach Object.prototype. What JSON.parse cannot keep is a number
// beyond double range: 1e400 becomes Infinity (and JSON.stringify then writes null, which the
// engine reads as "unset"). parseJson keeps the source text of such numbers so that an error can
// quote them: nonFinite(holder, key) -> "1e400", or undefined for a finite value.
export function parseJson(text) {
  const sources = new WeakMap(); // holder object -> Map(key -> source text)
  const value = JSON.parse(text, function revive(key, v, context) {
    if (typeof v === 'number' && !Number.isFinite(v)) {
      let keys = sources.get(this);
      if (!keys) sources.set(this, (keys = new Map()));
      keys.set(key, context?.source ?? String(v)); // context: JSON.parse source text access (Chromium 114+)
    }
    return v;
  });
  return { value, nonFinite: (holder, key) => sources.get(holder)?.get(key) };
}

// A value for a message, cut to `max` characters (links and files can be megabytes long).
export function quote(value, max = 60) {
  let text;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = '(a value too deeply nested to show)';
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// A list for a message: at most `max` items, then how many more.
export const list = (items, max = 20) =>
  items.length > max ? `${items.slice(0, max).join(', ')} and ${items.length - max} more` : items.join(', ');
