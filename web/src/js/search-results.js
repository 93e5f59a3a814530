// "Find a plan", the panel: its settings (which follow the form until the reader sets them), the search
// run in the worker with progress and a cancel button, the counts of the plans that lost with the engine's
// reasons, the ranked table (a Load button per row, and each plan's launch lines with Copy and Download)
// and the Pareto chart of step time against memory per device. A chunk of its own (web/build.mjs), fetched
// when the panel first comes near the screen, by the first search or by a link that carries one
// (search-view.js); the whole engine comes with the first search. Every figure, every reason and every
// launch line is the engine's; the page only places them.
import { $, h, svg } from './dom.js';
import { FIELDS, FRAMEWORKS, dotted } from './fields.js';
import { bytes, count, duration, fixed, large, percent, unitBytes } from './format.js';
import { linearTicks, tickLabel, timeUnit } from './axis.js';
const ALL_DIMENSIONS = ['tp', 'pp', 'vpp', 'sp', 'cp', 'ulysses', 'ep', 'zero', 'micro_batch', 'recompute', 'offload'];

// "8" -> 8, "8-64" -> {min: 8, max: 64}, "8, 16, 32" -> [8, 16, 32], "" -> undefined (the engine's default: the
// plan's own world size); anything else goes to the engine as written, whose error names /search/devices.
export function parseDevices(text) {
  const t = text.trim();
  if (t === '') return undefined;
  if (/^\d+$/.test(t)) return Number(t);
  let m = /^(\d+)\s*-\s*(\d+)$/.exec(t);
  if (m) return { min: Number(m[1]), max: Number(m[2]) };
  m = t.split(/\s*,\s*/);
  if (m.length > 1 && m.every((x) => /^\d+$/.test(x))) return m.map(Number);
  return t;
}

function devicesText(v) {
  if (typeof v === 'number' || typeof v === 'string') return String(v);
  if (Array.isArray(v)) return v.join(', ');
  return v && typeof v === 'object' ? `${v.min}-${v.max}` : '';
}

const box = (f) => $(`#s-fw-${f}`);

// The panel's settings as the engine's "search" object. A framework the device refuses is never searched.
function readSettings(framework) {
  const frameworks = FRAMEWORKS.filter((f) => box(f).checked && !box(f).disabled);
  const settings = {
    question: $('#s-question').value,
    devices: parseDevices($('#s-devices').value),
    global_batch: $('#s-batch').value === '' ? undefined : Number($('#s-batch').value),
    rank_by: $('#s-rank').value,
    frameworks: frameworks.length ? frameworks : [framework],
    tp_within_node: $('#s-tp-node').checked,
    memory_margin: Number($('#s-margin').value || 0) / 100,
    top: 20,
  };
  if ($('#s-offload').checked) settings.dimensions = ALL_DIMENSIONS;
  return settings;
}

// A link's own search settings: shown, and kept as the reader's (the form no longer moves them).
function showSettings(s, typed) {
  if (s.question) $('#s-question').value = s.question;
  if (s.rank_by) $('#s-rank').value = s.rank_by;
  if (s.devices !== undefined) {
    $('#s-devices').value = devicesText(s.devices);
    typed.add('s-devices');
  }
  if (s.global_batch !== undefined) {
    $('#s-batch').value = String(s.global_batch);
    typed.add('s-batch');
  }
  if (Array.isArray(s.frameworks)) {
    for (const f of FRAMEWORKS) box(f).checked = s.frameworks.includes(f);
    typed.add('s-fw');
  }
  if (s.tp_within_node !== undefined) $('#s-tp-node').checked = s.tp_within_node !== false;
  if (s.memory_margin !== undefined) $('#s-margin').value = String(Math.round(100 * (Number(s.memory_margin) || 0)));
  $('#s-offload').checked = Array.isArray(s.dimensions) && s.dimensions.includes('offload');
}

function planLabel(p) {
  const q = p.parallel;
  const zero = q.distributed_optimizer ? 'distopt' : `zero ${q.zero}`;
  const parts = [`dp ${q.dp}`, `tp ${q.tp}`, `pp ${q.pp}`];
  if (q.vpp > 1) parts.push(`vpp ${q.vpp}`);
  if (q.sp) parts.push('sp');
  if (q.cp > 1) parts.push(`cp ${q.cp}`);
  if (q.ulysses > 1) parts.push(`ulysses ${q.ulysses}`);
  if (q.ep > 1) parts.push(`ep ${q.ep}`);
  if (q.ep > 1 && q.etp !== q.tp) parts.push(`etp ${q.etp}`);
  parts.push(zero);
  if (q.offload_optimizer !== 'none') parts.push(`offload ${q.offload_params !== 'none' ? 'opt+params' : 'opt'}`);
  return parts.join(' · ');
}

// ---- Launch lines: each tool's lines as the engine gives them, to copy or download. -----------------------

// A file name for a tool's lines: the file the tool names ("DeepSpeed config (ds_config.json)"), else the tool's
// name ("Megatron-LM arguments (pretrain_gpt.py)" -> megatron-lm-args.sh).
export function launchFileName(tool) {
  const named = /\(([\w.-]+\.json)\)/.exec(tool);
  if (named) return named[1];
  const stem = tool.replace(/\s*\(.*$/, '').toLowerCase().replace('arguments', 'args').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `${stem || 'launch'}${/args|torchrun/.test(stem) ? '.sh' : '.txt'}`;
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: name.endsWith('.json') ? 'application/json' : 'text/plain' }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

async function copy(text, pre, note, tool) {
  try {
    await navigator.clipboard.writeText(text);
    note.textContent = `Copied: ${tool}.`;
  } catch {
    getSelection().selectAllChildren(pre);
    note.textContent = 'Clipboard unavailable: the text is selected, press Ctrl+C.';
  }
}

// `launch`: [{tool, lines}] from the engine. `note`: where Copy says what it did.
export function launchBlocks(launch, note) {
  return launch.map(({ tool, lines }) => {
    const text = `${lines.join('\n')}\n`;
    const name = launchFileName(tool);
    const pre = h('pre', { class: 'launch-lines', tabindex: 0 }, text);
    return h('div', { class: 'launch-tool', 'data-tool': tool },
      h('div', { class: 'launch-head' }, h('strong', null, tool),
        h('button', { type: 'button', class: 'launch-copy', onclick: () => copy(text, pre, note, tool) }, 'Copy'),
        h('button', { type: 'button', class: 'launch-download', 'data-file': name, onclick: () => download(name, text) }, `Download ${name}`)),
      pre);
  });
}

// ---- Results ---------------------------------------------------------------------------------------------

// The columns in the page's formats (format.js), as the summary and the stage table show them: memory in the
// reader's unit (GiB or GB), step time in the unit that reads best, MFU as a percentage, tokens/s as said aloud.
const columns = (unit) => ['#', 'Framework', 'Devices', 'Plan', 'Micro-batch', 'Recompute', `Peak (${unit})`, 'Step', 'MFU',
  'Tokens/s', 'Why this rank', ''];

// What loading a plan changed besides the plan: the batch or sequence the search used, when the form had another.
const KEPT = [['global_batch', 'global batch'], ['seq_len', 'sequence length']];
function loadedText(p, before) {
  const changes = KEPT.filter(([k]) => before?.[k] !== undefined && p.scenario.training[k] !== undefined && before[k] !== p.scenario.training[k])
    .map(([k, label]) => `${label} ${count(before[k])} → ${count(p.scenario.training[k])} as searched`);
  return `Loaded plan #${p.rank}${changes.length ? `: ${changes.join(', ')}` : ''}.`;
}

export function renderTable(result, host) {
  const unit = host.unit();
  const COLUMNS = columns(unit);
  const note = $('#s-note');
  note.textContent = '';
  const rows = result.plans.map((p) => {
    const launchRow = p.launch?.length
      ? h('tr', { class: 'launch-row', id: `s-launch-${p.rank}`, hidden: true },
        h('td', { colspan: COLUMNS.length }, launchBlocks(p.launch, note)))
      : null;
    const toggle = launchRow && h('button', { type: 'button', class: 'launch-plan', 'aria-expanded': 'false', 'aria-controls': launchRow.id,
      onclick: (e) => {
        launchRow.hidden = !launchRow.hidden;
        e.currentTarget.setAttribute('aria-expanded', String(!launchRow.hidden));
      } }, 'Launch');
    const load = () => {
      const before = host.report()?.scenario.training;
      host.load(p);
      note.textContent = loadedText(p, before);
    };
    return [h('tr', { 'data-rank': p.rank },
      h('td', null, String(p.rank)),
      h('td', null, p.framework),
      h('td', { class: 'num' }, String(p.devices)),
      h('td', null, planLabel(p)),
      h('td', { class: 'num' }, String(p.micro_batch)),
      h('td', null, p.recompute),
      h('td', { class: 'num' }, bytes(p.memory.peak_bytes, unit)),
      h('td', { class: 'num' }, duration(p.time.step_seconds)),
      h('td', { class: 'num' }, percent(p.time.mfu)),
      h('td', { class: 'num', title: count(p.time.tokens_per_second) }, large(p.time.tokens_per_second)),
      h('td', null, p.reason),
      h('td', { class: 'actions' }, h('button', { type: 'button', class: 'load-plan', onclick: load }, 'Load'), toggle)), launchRow];
  });
  $('#s-table').replaceChildren(h('thead', null, h('tr', null, COLUMNS.map((t) => h('th', { scope: 'col' }, t)))), h('tbody', null, rows));
}

// Step time against memory per device: the listed plans, and the Pareto front joined by a line. Both axes
// start at zero with round ticks (axis.js); memory in the reader's unit, time in the unit its largest value
// reads in; each axis title sits outside its tick labels (the y title above the axis, the x title below).
export function renderPareto(result, width, unit) {
  const box = $('#s-pareto');
  const points = [...result.plans, ...result.pareto];
  if (!points.length) {
    box.replaceChildren();
    return;
  }
  const W = Math.max(300, Math.min(width, 720));
  const H = 240;
  const pad = { l: 48, r: 16, t: 26, b: 40 };
  const per = unitBytes(unit);
  const mem = (p) => p.memory.peak_bytes / per;
  const { unit: tUnit, scale } = timeUnit(Math.max(...points.map((p) => p.time.step_seconds)));
  const time = (p) => p.time.step_seconds * scale;
  // Round ticks from zero up to the first at or beyond the largest value, so that every point is inside.
  const ticks = (max, n) => {
    const t = linearTicks(max, n);
    return t.at(-1) < max && t.length > 1 ? [...t, t.at(-1) + t[1]] : t;
  };
  const xTicks = ticks(Math.max(...points.map(mem)), Math.max(2, Math.floor((W - pad.l - pad.r) / 80)));
  const yTicks = ticks(Math.max(...points.map(time)), 4);
  const [xMax, yMax] = [xTicks.at(-1) || 1, yTicks.at(-1) || 1];
  const X = (v) => pad.l + (v / xMax) * (W - pad.l - pad.r);
  const Y = (v) => H - pad.b - (v / yMax) * (H - pad.t - pad.b);
  const at = (p) => ({ cx: X(mem(p)).toFixed(1), cy: Y(time(p)).toFixed(1) });
  const front = result.pareto.slice().sort((a, b) => a.memory.peak_bytes - b.memory.peak_bytes);
  const line = front.map((p) => `${X(mem(p)).toFixed(1)},${Y(time(p)).toFixed(1)}`).join(' ');
  box.replaceChildren(svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': `Pareto front: ${front.length} plans, step time against memory per device` },
  xTicks.map((t) => svg('text', { x: X(t).toFixed(1), y: H - pad.b + 14, 'text-anchor': 'middle', class: 'tick' }, tickLabel(t))),
  yTicks.map((t) => svg('text', { x: pad.l - 6, y: Y(t).toFixed(1), 'text-anchor': 'end', 'dominant-baseline': 'middle', class: 'tick' }, tickLabel(t))),
  svg('line', { x1: pad.l, y1: H - pad.b, x2: W - pad.r, y2: H - pad.b, class: 'axis' }),
  svg('line', { x1: pad.l, y1: pad.t, x2: pad.l, y2: H - pad.b, class: 'axis' }),
  svg('text', { x: (W + pad.l) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-label' }, `peak memory per device (${unit})`),
  svg('text', { x: 4, y: 12, class: 'axis-label' }, `step time (${tUnit})`),
  result.plans.map((p) => svg('circle', { ...at(p), r: 3, class: 'plan-dot' })),
  svg('polyline', { points: line, class: 'pareto-line', fill: 'none' }),
  front.map((p) => svg('circle', { ...at(p), r: 4, class: 'pareto-dot' },
    svg('title', null, `${p.framework} ${planLabel(p)}, micro-batch ${p.micro_batch}: ${bytes(p.memory.peak_bytes, unit)} ${unit}, ${duration(p.time.step_seconds)}`)))));
}

export function summary(result) {
  const c = result.counts;
  const n = (x) => fixed(x, 0);
  let text = `${n(c.candidates)} plans on ${result.devices.join(', ')} devices: ${n(c.fitting)} fit, ${n(c.does_not_fit)} do not fit, ` +
    `${n(c.invalid)} invalid, ${n(c.pruned)} skipped because a smaller variant already did not fit. Ranked by ${result.rank_by.replace(/_/g, ' ')}.`;
  if (result.answer) {
    const a = result.answer;
    text = (a.value !== undefined ? `Answer: ${a.field.replace(/_/g, ' ')} ${a.value}. ` : `No answer: ${a.reason}. `) + text;
  }
  return text;
}

// Why the other plans lost, in the engine's words: for each kind its count and the distinct reasons of the
// examples the engine gives (up to five a kind; it counts the rest but reports no reason for each of them).
// An invalid plan's reason names its field ("Global batch: …"); a plan that does not fit, the plan (the engine's
// examples are the closest to fitting).
const KINDS = [['invalid', 'invalid'], ['does_not_fit', 'do not fit'], ['pruned', 'skipped']];
const inWords = (e) => (e.path ? `${FIELDS.get(dotted(e.path))?.label || e.path}: ${e.message ?? e.reason}` : e.message ?? e.reason);
export function rejectedItems(result) {
  return KINDS.filter(([k]) => result.rejected?.[k]?.count > 0).map(([k, label]) => {
    const { count: n, examples } = result.rejected[k];
    const reasons = [...new Set(examples.map((e) =>
      (k === 'does_not_fit' ? `${e.framework} ${planLabel(e)}, micro-batch ${e.micro_batch}, ${e.recompute}: ${e.reason}` : inWords(e))))];
    const lead = `${count(n)} ${label}`;
    const of = examples.length < n ? ` (the engine's reason${reasons.length > 1 ? 's' : ''} for ${count(examples.length)} of them)` : '';
    return h('li', { 'data-kind': k }, h('strong', null, lead), `${of}: `,
      reasons.length > 1 ? h('ul', null, reasons.map((r) => h('li', null, r))) : reasons[0]);
  });
}

// The plan in the form, as its framework launches it (the engine's launch lines for the scenario, the lines a
// search row shows), while the Share section's "Launch this plan" is open; asked again when the plan changes.
function wireLaunchPlan(host) {
  const details = $('#launch-plan');
  const note = h('p', { class: 'message', role: 'status' });
  const out = h('div', { id: 'launch-plan-lines' });
  details.append(note, out);
  let key = '';
  let seq = 0;
  async function show() {
    const scenario = host.scenario();
    if (!details.open || JSON.stringify(scenario) === key) return;
    key = JSON.stringify(scenario);
    const id = ++seq;
    let answer;
    try {
      answer = await host.engine.launch(scenario);
    } catch (err) {
      key = '';
      answer = { ok: false, error: { message: `engine failure: ${err.message}` } };
    }
    if (id !== seq) return;
    note.textContent = answer.ok ? '' : `No launch lines for this plan: ${(answer.errors ?? [answer.error]).map(inWords).join('; ')}.`;
    out.replaceChildren(...(answer.ok ? launchBlocks(answer.launch, note) : []));
  }
  details.addEventListener('toggle', show);
  return show;
}

// ---- The panel ---------------------------------------------------------------------------------------------

// `host`: {engine, framework(), scenario(), report(), load(plan), saved(settings)}; `typed`: the ids of the panel's
// fields the reader has set (search-view.js notes them; 's-fw-…' for a framework box); `link`: a link's own search
// settings ({} when none).
export function wirePanel(host, typed, link = {}) {
  const status = $('#s-status');
  const why = h('ul', { id: 's-why', class: 'search-why' });
  status.after(why);
  $('#s-table').parentElement.before(h('p', { id: 's-note', class: 'message', role: 'status' }));
  showSettings(link, typed);

  // The settings follow the form while the reader has not set them: devices = the plan's world size and the
  // global batch, both as the engine resolved them (its report); the form's framework checked; frameworks the
  // device refuses unchecked and disabled, with the engine's reason.
  let refused = new Map();
  let asked = '';
  let seq = 0;
  const fwNote = h('p', { id: 's-fw-note', class: 'muted' });
  $('.search-form fieldset').after(fwNote);
  function showFrameworks() {
    const chosen = [...typed].some((id) => id.startsWith('s-fw'));
    for (const f of FRAMEWORKS) {
      const reason = refused.get(f);
      box(f).disabled = !!reason;
      box(f).parentElement.title = reason ? `Not on this device: ${reason}` : '';
      if (reason) box(f).checked = false;
      else if (!chosen) box(f).checked = f === host.framework();
    }
    fwNote.textContent = refused.size ? `Not on this device: ${[...refused.values()].join('; ')}.` : '';
  }
  const showLaunch = wireLaunchPlan(host);
  async function follow() {
    showLaunch();
    const r = host.report();
    if (r) {
      if (!typed.has('s-devices')) $('#s-devices').value = String(r.derived.world_size);
      if (!typed.has('s-batch')) $('#s-batch').value = String(r.scenario.training.global_batch);
    }
    const scenario = host.scenario();
    const key = JSON.stringify([scenario.hardware, scenario.model]);
    if (key !== asked) {
      const id = ++seq;
      let answer;
      try {
        answer = await host.engine.choices({ scenario, options: { '/framework': FRAMEWORKS } });
      } catch {
        answer = null;
      }
      if (id !== seq) return;
      asked = key;
      // Refused at its own field (a device rule); a reason naming another field ("/parallel/zero: …") is a
      // setting the search varies, not a refusal of the framework.
      refused = new Map((answer?.ok ? answer.options['/framework'] : [])
        .filter((o) => !o.valid && !String(o.reason).startsWith('/')).map((o) => [o.value, o.reason]));
    }
    showFrameworks();
  }
  // Each answer the page shows sets the status line (app.js setStatus): the panel follows it.
  new MutationObserver(follow).observe($('#status'), { childList: true });
  const ready = follow();

  // The last result, drawn again in the reader's unit when it changes.
  let shown = null;
  const show = () => {
    if (!shown) return;
    renderTable(shown, host);
    renderPareto(shown, $('#s-pareto').clientWidth || 640, host.unit());
  };
  $('#unit').addEventListener('change', show);

  let running = null;
  const finish = () => {
    running = null;
    $('#s-run').disabled = false;
    $('#s-cancel').hidden = true;
    $('#s-progress').hidden = true;
  };
  const clear = () => {
    shown = null;
    why.replaceChildren();
    $('#s-table').replaceChildren();
    $('#s-pareto').replaceChildren();
    $('#s-note').textContent = '';
  };
  async function run() {
    if (running) running.cancel();
    await ready; // the frameworks the device refuses are known before the first search
    const settings = readSettings(host.framework());
    host.saved(settings);
    const scenario = { ...host.scenario(), search: settings };
    $('#s-run').disabled = true;
    $('#s-cancel').hidden = false;
    $('#s-progress').hidden = false;
    $('#s-progress').value = 0;
    status.textContent = 'Searching…';
    const job = host.engine.search(scenario, (f) => { $('#s-progress').value = f; });
    running = job;
    let answer;
    try {
      answer = await job.result;
    } catch (err) {
      answer = { ok: false, error: { path: '', message: `engine failure: ${err.message}` } };
    }
    if (running !== job) return; // replaced by a newer search
    finish();
    if (answer === null) {
      status.textContent = 'Search cancelled.';
      return;
    }
    clear();
    if (!answer.ok) {
      status.textContent = `The search could not run: ${answer.error.path ? `${answer.error.path}: ` : ''}${answer.error.message}`;
      return;
    }
    const result = answer.search;
    status.textContent = summary(result);
    why.replaceChildren(...rejectedItems(result));
    if (result.answer?.plan && !result.plans.length) result.plans = [{ ...result.answer.plan, rank: 1 }];
    shown = result;
    show();
    document.body.dataset.searchParts = String(result.parts ?? 1); // the workers it ran in (for tests and traces)
    document.body.dataset.searchDone = String(Date.now());
  }
  $('#s-cancel').addEventListener('click', () => {
    running?.cancel();
  });
  return { run };
}
