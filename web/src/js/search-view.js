// "Find a plan": the engine's plan search run in the worker with progress and a cancel button; its
// results (search-results.js: the ranked table, the Pareto chart, a button per row that loads the plan
// into the form) come as a chunk fetched by the first search. Settings live in the share link (search=).
import { $ } from './dom.js';
import { FRAMEWORKS } from './fields.js';

const ALL_DIMENSIONS = ['tp', 'pp', 'vpp', 'sp', 'cp', 'ulysses', 'ep', 'zero', 'micro_batch', 'recompute', 'offload'];

// "8" -> 8, "8-64" -> {min: 8, max: 64}, "8, 16, 32" -> [8, 16, 32]; anything else goes to the engine
// as written, whose error names /search/devices.
export function parseDevices(text) {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  let m = /^(\d+)\s*-\s*(\d+)$/.exec(t);
  if (m) return { min: Number(m[1]), max: Number(m[2]) };
  m = t.split(/\s*,\s*/);
  if (m.length > 1 && m.every((x) => /^\d+$/.test(x))) return m.map(Number);
  return t;
}

function devicesText(v) {
  if (v == null) return '';
  if (typeof v === 'number' || typeof v === 'string') return String(v);
  if (Array.isArray(v)) return v.join(', ');
  return `${v.min}-${v.max}`;
}

// The panel's settings as the engine's "search" object.
function readSettings(framework) {
  const frameworks = FRAMEWORKS.filter((f) => $(`#s-fw-${f}`).checked);
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

function showSettings(s, framework) {
  $('#s-question').value = s.question ?? 'best_plan';
  $('#s-devices').value = devicesText(s.devices);
  if (s.global_batch !== undefined) $('#s-batch').value = String(s.global_batch);
  $('#s-rank').value = s.rank_by ?? 'step_time';
  const fws = Array.isArray(s.frameworks) ? s.frameworks : [framework];
  for (const f of FRAMEWORKS) $(`#s-fw-${f}`).checked = fws.includes(f);
  $('#s-tp-node').checked = s.tp_within_node !== false;
  $('#s-margin').value = String(Math.round(100 * (Number(s.memory_margin) || 0)));
  $('#s-offload').checked = Array.isArray(s.dimensions) && s.dimensions.includes('offload');
}

export function wireSearch(host) {
  let running = null;
  const status = $('#s-status');
  const finish = () => {
    running = null;
    $('#s-run').disabled = false;
    $('#s-cancel').hidden = true;
    $('#s-progress').hidden = true;
  };
  async function run() {
    if (running) running.cancel();
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
    const view = import('./search-results.js'); // fetched while the engine searches
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
    if (!answer.ok) {
      status.textContent = `The search could not run: ${answer.error.path ? `${answer.error.path}: ` : ''}${answer.error.message}`;
      $('#s-table').replaceChildren();
      $('#s-pareto').replaceChildren();
      return;
    }
    const { renderPareto, renderTable, summary } = await view;
    if (running) return; // a newer search started meanwhile
    const result = answer.search;
    status.textContent = summary(result);
    if (result.answer?.plan && !result.plans.length) result.plans = [{ ...result.answer.plan, rank: 1 }];
    renderTable(result, host.load);
    renderPareto(result, $('#s-pareto').clientWidth || 640);
    document.body.dataset.searchDone = String(Date.now());
  }
  $('#s-run').addEventListener('click', run);
  $('#s-cancel').addEventListener('click', () => {
    running?.cancel();
  });
  return {
    show(settings) {
      showSettings(settings, host.framework());
    },
    run,
  };
}
