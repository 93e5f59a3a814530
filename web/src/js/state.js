// The page state is a flat map of dotted paths to values ("entries"):
//   framework, model.preset, hardware.preset: always present ('' preset = Custom);
//   model.* / hardware.*: overrides of the chosen preset only (null = unset: it drops the
//     preset's value so the engine default applies);
//   everything else: the fields that are set.
// The engine scenario, the share fragment and the form are all views of this map.
import { FIELDS, SCENARIO_SECTIONS, isOverride, listOfIntegers, listOfNames } from './fields.js';
import { parseJson, quote } from './json.js';
import { numberText } from './number-text.js';

// The page opens on a plan that fits and that people run: Llama 3.1 8B on one node of eight H100s at
// its 8K pre-training context, tp 4 with sequence parallelism and dp 2, selective recompute. It fits
// under every framework, so switching the framework needs no other change.
export const DEFAULTS = Object.freeze({
  framework: 'megatron',
  'model.preset': 'llama-3.1-8b',
  'training.seq_len': 8192,
  'training.micro_batch': 1,
  'training.global_batch': 64,
  'training.recompute': 'selective',
  'parallel.dp': 2,
  'parallel.tp': 4,
  'parallel.pp': 1,
  'parallel.sp': true,
  'hardware.preset': 'h100-sxm-80gb',
});
// A link writes only what differs from the defaults of its version, so each version keeps its own:
// v=1 links (before the defaults above) still open as they were written.
const LINK_DEFAULTS = Object.freeze({
  1: Object.freeze({
    framework: 'megatron',
    'model.preset': 'llama-3.1-8b',
    'training.seq_len': 4096,
    'training.micro_batch': 1,
    'parallel.dp': 1,
    'parallel.tp': 1,
    'parallel.pp': 1,
    'hardware.preset': 'h100-sxm-80gb',
  }),
  2: DEFAULTS,
});
const LINK_VERSION = 2;
export const UNITS = ['GiB', 'GB'];
// What the page plans: a training run, or serving the plan's model (the "Serve this model" answer first).
export const MODES = ['train', 'serve'];
// `pin`: the entries of plan A of a comparison (null: nothing pinned).
export const defaultState = () => ({ entries: { ...DEFAULTS }, unit: UNITS[0], mode: MODES[0], search: null, pin: null, serve: null, rl: null });

const dig = (obj, keys) => keys.reduce((o, k) => o?.[k], obj);
const presetFile = (presets, section, id) => presets[section === 'model' ? 'models' : 'hardware'].find((p) => p.id === id);

// The chosen preset's value for a model/hardware field (undefined for Custom or a missing key).
export function baseOf(presets, entries, path) {
  if (!isOverride(path)) return undefined;
  const [section, ...keys] = path.split('.');
  const file = presetFile(presets, section, entries[`${section}.preset`]);
  return dig(section === 'model' ? file?.model : file, keys);
}

// What the form shows: the override or set value, else the preset's value.
export const effective = (presets, entries, path) => (path in entries ? entries[path] : baseOf(presets, entries, path));

// Sets one field from the form; `value` undefined = the input is empty, which returns the field to its
// preset's value (model and hardware fields) or to the engine's default (the placeholder shows which).
// A link can still unset a preset's value (an empty value: null), the form cannot by accident.
export function setField(presets, entries, path, value) {
  const spec = FIELDS.get(path);
  const base = baseOf(presets, entries, path);
  if (value === undefined) {
    delete entries[path];
  } else if (value === base || (base === undefined && spec.type === 'bool' && !spec.options && value === spec.def)) {
    delete entries[path]; // a checkbox back at what it shows when unset is unset again
  } else entries[path] = value;
}

// A preset clears its section's overrides; Custom keeps what the form shows, now explicit.
export function setPreset(presets, entries, section, id, inputPaths) {
  const shown = id === '' ? inputPaths.map((p) => [p, effective(presets, entries, p)]) : [];
  for (const p of Object.keys(entries)) if (p.startsWith(`${section}.`) && isOverride(p)) delete entries[p];
  entries[`${section}.preset`] = id;
  for (const [p, v] of shown) if (v != null) entries[p] = v;
}

// Overrides equal to the preset are not overrides; unsetting what the preset lacks is a no-op.
function canonical(presets, entries) {
  for (const [p, v] of Object.entries(entries)) {
    const base = baseOf(presets, entries, p);
    if (isOverride(p) && (v === base || (v === null && base === undefined))) delete entries[p];
  }
  return entries;
}

// The engine scenario: {framework, model: {preset, ...overrides}, training, parallel,
// implementation, hardware, adapter}; `implementation` and `adapter` only when a field of them is set (the engine
// fills the framework's defaults; without an adapter every parameter is trained).
export function toScenario(entries) {
  const scenario = { framework: entries.framework, name: entries.name };
  for (const section of SCENARIO_SECTIONS) {
    const obj = entries[`${section}.preset`] ? { preset: entries[`${section}.preset`] } : {};
    for (const path of FIELDS.keys()) {
      if (!path.startsWith(`${section}.`) || path.endsWith('.preset') || !(path in entries)) continue;
      const keys = path.split('.').slice(1);
      const last = keys.pop();
      let target = obj;
      for (const k of keys) target = target[k] ??= {};
      target[last] = entries[path];
    }
    if ((section !== 'implementation' && section !== 'adapter') || Object.keys(obj).length) scenario[section] = obj;
  }
  if (scenario.name === undefined) delete scenario.name;
  return scenario;
}

// ---- Share fragment: #v=2&<path>=<value>&... with only what differs from the page defaults
// (model/hardware: only the overrides). An empty value means "unset".
// `search`: the plan-search settings (the engine's "search" object), carried as JSON under `search=`.
// `pin`: the entries of plan A of a comparison, carried under `pin=` as A's own link fragment
// (with its own `v=`, no unit, search or pin), percent-encoded as one value.
// `serve`: the "Serve this model" request (the engine's "serving" object), carried as JSON under `serve=`; `rl`: the
// "Post-train with RL" settings (the engine's "rl" object) under `rl=`.
export function encodeFragment(entries, unit, search = null, pin = null, serve = null, rl = null, mode = MODES[0]) {
  const parts = [`v=${LINK_VERSION}`];
  for (const path of FIELDS.keys()) {
    // A default field the entries lack is written empty ("unset"), so the link reopens without it.
    const differs = isOverride(path) || path === 'name' ? path in entries : entries[path] !== DEFAULTS[path];
    if (differs) parts.push(`${path}=${encodeURIComponent(entries[path] ?? '')}`);
  }
  if (unit !== UNITS[0]) parts.push(`unit=${unit}`);
  if (mode !== MODES[0]) parts.push(`mode=${mode}`);
  for (const [key, value] of [['search', search], ['serve', serve], ['rl', rl]]) if (value) parts.push(`${key}=${encodeURIComponent(JSON.stringify(value))}`);
  if (pin) parts.push(`pin=${encodeURIComponent(encodeFragment(pin, UNITS[0]).slice(1))}`);
  return `#${parts.join('&')}`;
}

const fail = (message) => {
  throw new Error(message);
};

// Checks a value's type for its field (a select can only show its own options). `source`: how
// the link wrote a number beyond double range ("1e400"), which JSON.parse made Infinity.
function check(path, v, presets, source) {
  const { type, options } = FIELDS.get(path);
  if (type === 'ints') {
    if (!Array.isArray(v) || !v.every(Number.isSafeInteger)) fail(`${path} must be a list of integers, got ${quote(v)}`);
    return v;
  }
  if (type === 'names') {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail(`${path} must be a list of names, got ${quote(v)}`);
    return v;
  }
  const numeric = type === 'int' || type === 'num';
  if (numeric && typeof v === 'number' && !Number.isFinite(v)) fail(`${path}: ${source ?? v} is not a finite number`);
  if (numeric ? !Number.isFinite(v) : typeof v !== (type === 'bool' ? 'boolean' : 'string'))
    fail(`${path} must be ${numeric ? 'a number' : type === 'bool' ? 'true or false' : 'a string'}, got ${quote(v)}`);
  if (type === 'preset' && !presetFile(presets, path.split('.')[0], v)) fail(`unknown ${path} ${quote(v)}`);
  if (options && !options.includes(String(v))) fail(`${path} must be one of ${options.join('|')}, got ${quote(v)}`);
  return v;
}

// One fragment value, typed by its field.
function parseText(path, text, presets) {
  const { type } = FIELDS.get(path);
  if (type === 'int' || type === 'num') {
    const n = text.trim() === '' ? NaN : Number(text);
    return check(path, Number.isNaN(n) ? text : n, presets, text);
  }
  if (type === 'bool') return check(path, { true: true, false: false }[text] ?? text, presets);
  if (type === 'ints') return check(path, listOfIntegers(text), presets);
  if (type === 'names') return check(path, listOfNames(text), presets);
  return check(path, text, presets);
}

// `inner`: the text is a pinned plan's own fragment (the value of `pin=`), which carries fields only.
function decodeLink(text, presets, inner = false) {
  // A part that cannot be read (no value, bad percent-encoding) is named and left out, like a bad field.
  const unread = [];
  const pairs = text.split('&').filter(Boolean).flatMap((part) => {
    const i = part.indexOf('=');
    if (i < 0) {
      unread.push(`${quote(part)} has no value`);
      return [];
    }
    try {
      return [[part.slice(0, i), decodeURIComponent(part.slice(i + 1))]];
    } catch {
      unread.push(part.slice(0, i) === 'pin' ? 'pin= (plan A of the comparison) was dropped: it is not valid percent-encoding'
        : `the value of ${quote(part.slice(0, i))} is not valid percent-encoding`);
      return [];
    }
  });
  if (inner && unread.length) fail(unread.join('; '));
  const map = new Map(pairs);
  const base = LINK_DEFAULTS[map.get('v')];
  if (!base || !Object.hasOwn(LINK_DEFAULTS, map.get('v')))
    fail(map.has('v') ? `link version v=${quote(map.get('v'))} is not supported (this page reads v=1 and v=2)` : 'the link has no version (v=2)');
  if (inner) for (const key of ['unit', 'mode', 'search', 'pin', 'serve', 'rl']) if (map.has(key)) fail(`it carries ${key}=, which only the whole link may`);
  const unit = map.get('unit') ?? UNITS[0];
  if (!UNITS.includes(unit)) fail(`unit must be GiB or GB, got ${quote(unit)}`);
  // The page's mode (training or serving) is read like the serving request: one that does not read is named, the plan loads.
  let mode = map.get('mode') ?? MODES[0];
  if (!MODES.includes(mode)) {
    unread.push(`mode=${quote(mode)} was dropped: it is train or serve`);
    mode = MODES[0];
  }
  map.delete('mode');
  // The search settings and the serving request go to the engine as they are: it checks them and names a bad field.
  const object = (key, what) => {
    if (!map.has(key)) return null;
    let value;
    try {
      value = parseJson(map.get(key)).value;
    } catch (err) {
      fail(`the ${what} are not valid JSON (${err.message})`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(`the ${what} must be a JSON object`);
    map.delete(key);
    return value;
  };
  const search = object('search', 'search settings');
  // A serving request or RL settings that do not read are dropped and named; the plan loads.
  const optional = (key, what, named) => {
    try {
      return object(key, what);
    } catch (err) {
      map.delete(key);
      unread.push(`${key}= (${named}) was dropped: ${err.message}`);
      return null;
    }
  };
  const serve = optional('serve', 'serving settings', 'the serving request');
  const rl = optional('rl', 'RL settings', 'the RL settings');
  map.delete('v');
  map.delete('unit');
  const entries = { ...base };
  // Every field that reads is loaded; one that does not (an unknown key, a value of the wrong kind) is
  // left at its default and named in `problems`, so one bad field never drops the rest of a link.
  const problems = [...unread];
  // The pinned plan A: read whole or not at all (a half-read A would compare against a plan nobody
  // pinned); a bad one is named and dropped, and B loads as usual.
  let pin = null;
  if (map.has('pin')) {
    try {
      const inner = decodeLink(map.get('pin'), presets, true);
      if (inner.problems.length) fail(inner.problems.join('; '));
      pin = inner.entries;
    } catch (err) {
      problems.push(`pin= (plan A of the comparison) was dropped: ${err.message}`);
    }
    map.delete('pin');
  }
  // Presets first: overrides are relative to them whatever the order in the link.
  for (const [path, text] of [...map].sort(([a], [b]) => b.endsWith('.preset') - a.endsWith('.preset'))) {
    const spec = FIELDS.get(path);
    try {
      if (!spec) fail(`unknown key ${quote(path)} (ignored)`);
      if (text !== '' || spec.type === 'preset') entries[path] = text && parseText(path, text, presets);
      else if (path === 'framework') fail('framework must not be empty');
      else if (isOverride(path)) entries[path] = null;
      else delete entries[path];
    } catch (err) {
      problems.push(err.message);
    }
  }
  return { entries: canonical(presets, entries), unit, mode, search, pin, serve, rl, problems };
}

// #scenario=<JSON>: any engine scenario, by the engine's public field names.
// Keys are only compared with the page's own field names (FIELDS is a Map), never used to look
// anything up on an object.
function decodeScenario(json, presets) {
  let parsed;
  try {
    parsed = parseJson(json);
  } catch (err) {
    fail(`the scenario is not valid JSON (${err.message})`);
  }
  const scenario = parsed.value;
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(scenario)) fail('the scenario must be a JSON object');
  const entries = { framework: 'megatron', 'model.preset': '', 'hardware.preset': '' };
  // Every field that reads is loaded; one that does not is named in `problems` and left out (as in a #v= link):
  // one bad field never drops the rest of a scenario.
  const problems = [];
  const tryTo = (read) => {
    try {
      read();
    } catch (err) {
      problems.push(err.message);
    }
  };
  // `holder[key]` is the value v of field `path`.
  const put = (path, v, holder, key) => tryTo(() => {
    if (!FIELDS.has(path)) fail(`unknown field ${quote(path)}`);
    if (v !== null) entries[path] = check(path, v, presets, parsed.nonFinite(holder, key));
    else if (isOverride(path)) entries[path] = null;
  });
  for (const [key, value] of Object.entries(scenario)) {
    if (key === 'version') tryTo(() => value === 1 || fail(`version must be 1, got ${quote(value)}`));
    else if (key === 'framework' || key === 'name') put(key, value, scenario, key);
    else if (!SCENARIO_SECTIONS.includes(key)) problems.push(`unknown field ${quote(key)}`);
    else if (isObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (key !== 'hardware' || k !== 'peak_tflops') put(`${key}.${k}`, v, value, k);
        else if (isObject(v)) for (const [t, x] of Object.entries(v)) put(`hardware.peak_tflops.${t}`, x, v, t);
        else if (v !== null) problems.push('hardware.peak_tflops must be an object');
      }
    } else if (value !== null) problems.push(`${key} must be an object`);
  }
  // No framework named: the engine's default for the device applies (xla on a TPU); app.js asks it which.
  return { entries: canonical(presets, entries), unit: UNITS[0], search: null, pin: null, problems,
    frameworkOpen: !('framework' in scenario) || problems.some((p) => p.startsWith('framework ')) };
}

// The longest fragment read, in characters (64 KiB). A real link is well under 2 KB (only what
// differs from the defaults); a longer one is refused before any work is done on it, so a link of
// megabytes cannot stall the tab (each edit would re-encode it into the URL and the share fields).
export const MAX_FRAGMENT = 65536;

// Reads location.hash into {entries, unit}; throws an Error with a readable message.
export function decodeFragment(hash, presets) {
  if (hash.length > MAX_FRAGMENT + 1)
    fail(`it is too long (${numberText(hash.length - 1)} characters after the #; this page reads at most ` +
      `${numberText(MAX_FRAGMENT)})`);
  const text = hash.replace(/^#/, '');
  if (!text) return defaultState();
  if (!text.startsWith('scenario=')) return decodeLink(text, presets);
  let json;
  try {
    json = decodeURIComponent(text.slice('scenario='.length));
  } catch {
    fail('the scenario is not valid percent-encoding');
  }
  return decodeScenario(json, presets);
}
