// Wires the page: state <-> form <-> URL fragment, one engine evaluation per animation frame,
// and the rendering of the latest answer. The page never computes a figure; the engine does.
import { $, h } from './dom.js';
import { afterPaint } from './after-paint.js';
import { FIELDS, FRAMEWORKS, dotted } from './fields.js';
import { buildForm, clearFieldErrors, inputPaths, readInput, showFieldErrors, showResolved, syncForm } from './form.js';
import { acceptedFramework, updateMenus, wireSteppers } from './guide.js';
import { renderChart, renderLegend } from './chart.js';
import { dig, modelName, renderDerived, renderHeadline, renderModuleTable, renderNotes, renderStageTable, renderXla } from './render.js';
import { copyText, iframeSnippet, pageUrl } from './share.js';
import { renderCommTable, renderTimeChart, renderTimeHeadline, renderTimeTable } from './time-view.js';
import { wireSearch } from './search-view.js';
import { reportHeight } from './embed.js';
import { renderSummary } from './summary.js';
import { renderTimeline, setTimelineStage } from './memory-timeline.js';
import { list } from './json.js';
import { bytes, count, duration, fixed, percent } from './format.js';
import { MAX_FRAGMENT, MODES, decodeFragment, defaultState, effective, encodeFragment, setField, setPreset, toScenario } from './state.js';

const embed = new URLSearchParams(window.location.search).get('embed') === '1';
const form = $('#scenario-form');
// `edited`: the reader changed something since the link was read (a later good result clears
// the link's error message).
const app = { engine: null, presets: null, entries: null, unit: 'GiB', mode: 'train', report: null, seq: 0, frame: 0, edited: false, search: null, serve: null, rl: null, choice: 0 };

function setStatus(state, text) {
  const el = $('#status');
  el.dataset.state = state;
  el.textContent = text;
}

// The message about a link that could not be read: shown until dismissed, until the next link,
// or until an edit of the reader's gives a result.
function linkError(text) {
  $('#link-error').hidden = !text;
  $('#link-error-text').textContent = text;
}

// Loads the state from the fragment; a link that cannot be read says why and loads the defaults. A #scenario= link
// that names no framework gets the one the engine accepts on its device (xla on a TPU) before it is evaluated.
async function loadFragment() {
  app.edited = false;
  try {
    const { problems = [], frameworkOpen = false, ...state } = decodeFragment(window.location.hash, app.presets);
    Object.assign(app, state);
    app.serve = state.serve ?? null;
    app.rl = state.rl ?? null;
    app.mode = state.mode ?? MODES[0];
    if (frameworkOpen) app.entries.framework = (await acceptedFramework(app.engine, toScenario(app.entries), FRAMEWORKS)) ?? app.entries.framework;
    linkError(problems.length ? `Some of this link could not be read and was left at the defaults: ${problems.join('; ')}.` : '');
    // The address bar shows what was loaded, not the parts that were dropped (the banner names those).
    if (problems.length) window.history.replaceState(null, '', fragment());
  } catch (err) {
    Object.assign(app, defaultState());
    linkError(`This link could not be read: ${err.message}. Showing the defaults instead.`);
    window.history.replaceState(null, '', fragment());
  }
  $('#unit').value = app.unit;
  showMode();
  if (form?.firstChild) syncForm(form, app.presets, app.entries, true);
  evaluatePin();
  // A link with a serving request opens "Serve this model" with it.
  if (app.serve && !embed) $('#serving').open = true;
  else servingView?.then((view) => view.restoreServing(servingPage()));
  if (app.rl && !embed) $('#rl').open = true;
  else rlView?.then((view) => view.restoreRl(rlPage()));
}

function fragment() {
  return encodeFragment(app.entries, app.unit, app.search, app.pin, app.serve, app.rl, app.mode);
}

// Training or serving: in serving mode the plan's model served ("Serve this model", opened) is the answer, and the
// training sections step aside (style.css body[data-mode="serve"]); the form still sets the model, device and tp. The
// embed view shows the serving answer alone (its request as the link gives it).
function showMode() {
  const serve = app.mode === 'serve';
  document.body.dataset.mode = app.mode;
  $('#mode-train')?.setAttribute('aria-pressed', String(!serve));
  $('#mode-serve')?.setAttribute('aria-pressed', String(serve));
  // The embed view has no form.
  const title = $('#inputs-title');
  if (title) title.textContent = serve ? 'Model, device and tensor parallelism' : 'Training plan';
  if (serve) $('#serving').open = true;
}

function setMode(mode) {
  if (app.mode === mode) return;
  app.mode = mode;
  showMode();
  changed(false);
}

// ---- Compare two plans: A (app.pin, entries) is evaluated in the worker once each time A changes
// and its answer kept; B is the current report. compare.js renders the pair.
const pair = { key: '', answer: null };

async function evaluatePin() {
  const scenario = app.pin ? toScenario(app.pin) : null;
  const key = scenario ? JSON.stringify(scenario) : '';
  if (key !== pair.key) {
    pair.key = key;
    pair.answer = null;
    if (scenario) {
      renderPair(); // "computing…" until A's answer comes
      let answer;
      try {
        answer = await app.engine.evaluate(scenario);
      } catch (err) {
        answer = { ok: false, error: { path: '', message: `engine failure: ${err.message}` } };
      }
      if (pair.key !== key) return; // A changed meanwhile
      pair.answer = answer;
    }
  }
  renderPair();
}

// The comparison's code is a chunk of its own (web/build.mjs), fetched when a plan is first pinned or a
// link carries a pin: a page that compares nothing never downloads it (page budget: docs/performance.md).
let compare = null;
function renderPair() {
  const on = Boolean(app.pin);
  $('#compare-section').hidden = !on;
  $('#toc-compare').hidden = !on;
  $('#pin').textContent = on ? 'Pin as A again' : 'Pin as A';
  if (!on) {
    $('#compare').replaceChildren();
    return;
  }
  compare ??= import('./compare.js');
  compare.then(({ renderCompare }) => {
    if (app.pin) renderCompare($('#compare'), { a: pair.answer, b: app.report, unit: app.unit, presets: app.presets, compact: embed });
  });
}

function setPin(entries) {
  app.pin = entries && structuredClone(entries);
  changed(false);
  evaluatePin();
}

// A plan the search found, into the form: its framework, parallel plan, micro-batch and recompute.
function loadPlan(plan) {
  const s = plan.scenario;
  app.entries.framework = s.framework;
  for (const [key, value] of Object.entries(s.parallel)) {
    const path = `parallel.${key}`;
    if (FIELDS.has(path)) setField(app.presets, app.entries, path, value);
  }
  for (const key of ['micro_batch', 'recompute', 'global_batch', 'seq_len'])
    if (FIELDS.has(`training.${key}`) && s.training[key] !== undefined) setField(app.presets, app.entries, `training.${key}`, s.training[key]);
  syncForm(form, app.presets, app.entries);
  app.edited = true;
  changed();
  $('#results-title').scrollIntoView({ block: 'start' });
}

// `link`: the plan's fragment where the caller has it (an edit encodes it once for the address bar, its length and
// these fields).
function updateShareFields(link = fragment()) {
  $('#share-url').value = pageUrl(link, false);
  $('#iframe-snippet').value = iframeSnippet(link);
  $('#open-full').href = pageUrl(link, false);
}

// The URL follows every change, at once. Chromium ignores (with a console warning) more than
// 200 history calls in 10 s, which a held-down arrow key in a number input can reach; past 150
// writes in 10 s the next one waits for the window to clear (the latest state still lands).
const writes = [];
let pendingWrite = 0;
function writeFragment(next = fragment()) {
  clearTimeout(pendingWrite);
  const now = performance.now();
  while (writes.length && writes[0] < now - 10000) writes.shift();
  if (writes.length >= 150) {
    pendingWrite = setTimeout(() => writeFragment(), writes[0] + 10000 - now);  // the state then, not this one
    return;
  }
  if (window.location.hash === next) return;
  window.history.replaceState(null, '', next);
  writes.push(now);
}

// Text a number field cannot hold (1e400) is the engine's error to show, never part of a link: the address bar
// and the share fields keep the last plan that could be written.
const unreadableNumber = () => [...(form?.querySelectorAll('input[type="number"]') ?? [])].some((el) => el.validity.badInput);

// A plan whose link would be longer than the page reads back (MAX_FRAGMENT: a pinned plan beside a long one) is not
// written: the address bar and the share fields keep the last plan that fits, and the bar says so.
const TOO_LONG = 'too long for a link';
function linkFits(link = fragment()) {
  const length = link.length - 1;
  const fits = length <= MAX_FRAGMENT;
  if (!fits) linkError(`This plan's link would be ${count(length)} characters, ${TOO_LONG} (this page reads at most ` +
    `${count(MAX_FRAGMENT)}): the address bar and the share fields keep the last plan that fits.`);
  else if ($('#link-error-text').textContent.includes(TOO_LONG)) linkError('');
  return fits;
}

function changed(evaluate = true) {
  app.choice += 1; // a choice's moves still being found are for a plan that is no longer the form's
  if (!unreadableNumber()) {
    const link = fragment();  // encoded once per edit
    if (linkFits(link)) {
      writeFragment(link);
      updateShareFields(link);
    }
  }
  if (evaluate) evaluateSoon();
}

// An evaluation asked for and not yet shown is dropped: evaluateNow shows only the answer to the latest request.
function dropPendingAnswer() {
  cancelAnimationFrame(app.frame);
  app.frame = 0;
  app.seq += 1;
}

function evaluateSoon() {
  if (!app.frame) app.frame = requestAnimationFrame(evaluateNow);
}

async function evaluateNow() {
  app.frame = 0;
  const id = ++app.seq;
  let answer;
  const scenario = toScenario(app.entries);
  try {
    answer = await app.engine.evaluate(scenario);
  } catch (err) {
    answer = { ok: false, error: { path: '', message: `engine failure: ${err.message}` } };
  }
  if (id !== app.seq) return; // a newer request was sent meanwhile; only the latest is shown
  if (answer.ok) showReport(answer.report);
  else showError(answer.errors || [answer.error]);
  if (!embed && form?.firstChild) updateMenus(form, app.engine, scenario); // after the answer: it never delays one
}

// What the results show, in two parts. With the numbers, the first screen: the summary, the headline, the
// stage table and its chart, the time headline and, when a plan is pinned, the comparison. In the task after
// they are painted, the sections below it, which a reader reaches by scrolling: the module tree, the time and
// communication tables, the notes, the Markdown export and the four charts there (memory over the step, time,
// and, once their file has come, pipeline and roofline: drawLowerCharts). The first result does not wait for them: measured 25 to 30 ms sooner painted (page
// budget: docs/performance.md); the first of all waits until it is on screen (after-paint.js). #results[data-below] is
// "pending" until they are drawn, then "drawn". An embed shows no time tables or charts, so they are not drawn there.
function renderResults(first = false) {
  const r = app.report;
  if (!r) return;
  renderSummary($('#summary'), r, app.unit);
  renderHeadline($('#headline'), r, app.unit, app.presets);
  renderStageTable($('#stage-table'), r, app.unit);
  renderXla($('#xla-section'), $('#xla'), r, app.unit);
  renderTimeHeadline($('#time-headline'), r);
  drawStageChart();
  if (app.pin) renderPair();
  const results = $('#results');
  results.dataset.below = 'pending';
  afterPaint(() => {
    if (app.report !== r) return; // a newer report has its own drawing scheduled
    renderModuleTable($('#module-table'), r, app.unit);
    renderNotes($('#notes'), r);
    writeMarkdown();
    watchMarkdown();
    if (!embed) {
      renderTimeTable($('#time-table'), r);
      renderCommTable($('#comm-table'), r, app.unit);
      drawBelowCharts();
      renderKernelTable();
      refreshReconcile();
      refreshRl();
    }
    // The embed view of a serving link shows the serving answer: it is drawn once this report has come, whether the
    // section's code loaded before it or after (serving-view.js refreshes only an open, wired section).
    refreshServing();
    results.dataset.below = 'drawn';
  }, { firstVerdict: first });
}

// "Compare with my run" (reconcile-view.js, fetched on the section's first opening): a pasted log against the plan.
let reconcileView = null;
const reconcilePage = () => ({ engine: app.engine, report: () => app.report, unit: () => app.unit, calibrate, h, bytes, duration, fixed, percent });
// Keeps what a log implies for the reader's cluster (scenario fields by path) in the plan, and so in its link.
function calibrate(fields) {
  for (const [path, value] of Object.entries(fields)) if (FIELDS.has(path)) setField(app.presets, app.entries, path, value);
  syncForm(form, app.presets, app.entries, true);
  app.edited = true;
  changed();
}
function openReconcile() {
  if (!$('#reconcile').open || reconcileView) return;
  reconcileView = import('./reconcile-view.js');
  reconcileView.then((view) => view.wireReconcile(reconcilePage()));
}
function refreshReconcile() {
  reconcileView?.then((view) => view.refreshReconcile(reconcilePage()));
}

// "Serve this model" (serving-view.js, fetched on the section's first opening): the plan's model served as vLLM runs it.
let servingView = null;
const servingPage = () => ({ engine: app.engine, report: () => app.report, unit: () => app.unit, h, bytes, duration, count, fixed, calibrate,
  model: () => modelName(app.report, app.presets),
  request: () => app.serve, saved: (request) => { app.serve = request; changed(false); } });
function openServing() {
  if (!$('#serving').open) return;
  if (servingView) return refreshServing();
  servingView = import('./serving-view.js');
  servingView.then((view) => view.wireServing(servingPage()));
}
function refreshServing() {
  servingView?.then((view) => view.refreshServing(servingPage()));
}

// "Post-train with RL" (rl-view.js, fetched on the section's first opening): the plan as the actor of a GRPO, PPO or
// DPO step with its rollout engine on the same GPUs.
let rlView = null;
const rlPage = () => ({ engine: app.engine, report: () => app.report, unit: () => app.unit, h, bytes, duration, count, calibrate,
  request: () => app.rl, saved: (request) => { app.rl = request; changed(false); } });
function openRl() {
  if (!$('#rl').open) return;
  if (rlView) return refreshRl();
  rlView = import('./rl-view.js');
  rlView.then((view) => view.wireRl(rlPage()));
}
function refreshRl() {
  rlView?.then((view) => view.refreshRl(rlPage()));
}

// The per-kernel table, while its section is open: kernel-view.js (fetched on the first opening) asks the whole
// engine for it and draws it, unless a newer report has come meanwhile.
let kernelView = null;
function renderKernelTable() {
  const r = app.report;
  if (!$('#kernels').open || !r) return;
  kernelView ??= import('./kernel-view.js');
  kernelView.then((view) => view.showKernels(app.engine, r, () => app.report === r, { h, count, duration, fixed }));
}

// The memory-per-stage chart at its container's width (again when that changes).
function drawStageChart() {
  app.chartWidth = $('#chart-box').clientWidth;
  renderChart($('#stage-chart'), app.report, app.unit, app.chartWidth);
}

// The four charts below the first screen at their containers' widths.
function drawBelowCharts() {
  const r = app.report;
  // Read every width before drawing anything: each read after a DOM write forces a layout.
  const widths = ['#time-chart-box', '#gantt', '#roofline', '#timeline-box'].map((sel) => $(sel).clientWidth);
  drawTimeline(widths[3]);
  renderTimeChart($('#time-chart'), $('#time-legend'), r, widths[0]);
  drawLowerCharts(widths[1], widths[2]);
}

// The Gantt chart and the roofline plot come in a file of their own (lower-charts.js), fetched once the time
// section nears the screen, and are drawn from then on with the rest (page budget: docs/performance.md).
// #results[data-lower-charts] is "waiting" until that file has come, then "drawn".
let lowerCharts = null;
function drawLowerCharts(ganttWidth = $('#gantt').clientWidth, rooflineWidth = $('#roofline').clientWidth) {
  if (!lowerCharts || !app.report) return;
  lowerCharts.renderGantt($('#gantt'), $('#gantt-legend'), app.report, ganttWidth);
  lowerCharts.renderRoofline($('#roofline'), $('#roofline-legend'), app.report, rooflineWidth);
  $('#results').dataset.lowerCharts = 'drawn';
}

// The Markdown export is the engine's (engine/io/render/report_markdown.cpp: the document `shardcalc estimate --format
// markdown` prints, in the page's unit), asked of the whole engine once the Share block nears the screen or Copy
// Markdown is pressed, then with every result; never in the embed view, which has no Share block (and so never fetches
// the whole engine for it). An answer for a report or unit the page has since left is dropped; the text box never shows
// a stale plan's Markdown. Two asks for the same report and unit (the Share block nearing the screen as Copy Markdown
// is pressed) get the same text: each answer stands.
let markdownWanted = false;
async function writeMarkdown() {
  const r = app.report;
  const unit = app.unit;
  if (!markdownWanted || !r || app.errors) return null;
  let text;
  try {
    const answer = await app.engine.markdown(r.scenario, unit);
    text = answer.ok ? answer.text : `No Markdown: ${answer.error?.message || 'the engine gave none'}`;
  } catch (error) {
    text = `No Markdown: ${error?.message || error}`;
  }
  if (app.report !== r || app.unit !== unit || app.errors) return null;
  $('#markdown-output').value = text;
  return text;
}
const loadMarkdown = () => {
  markdownWanted = true;
  return writeMarkdown();
};

// Watched from the first result drawn on, when the sections above have their height.
let markdownWatched = false;
function watchMarkdown() {
  if (markdownWatched) return;
  markdownWatched = true;
  if (embed) return;
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    observer.disconnect();
    loadMarkdown();
  }, { rootMargin: '100% 0px' });
  observer.observe($('#markdown-output'));
}

function watchLowerCharts() {
  $('#results').dataset.lowerCharts = 'waiting';
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    observer.disconnect();
    import('./lower-charts.js').then((module) => {
      lowerCharts = module;
      drawLowerCharts();
    });
  }, { rootMargin: '100% 0px' }); // a screen ahead: drawn before the reader gets there
  observer.observe($('#gantt'));
}

// Memory over the step, for the stage the reader picked (the most loaded one by default).
function drawTimeline(width = $('#timeline-box').clientWidth) {
  const els = { picker: $('#timeline-picker'), select: $('#timeline-stage'), chart: $('#timeline-chart'),
    legend: $('#timeline-legend'), note: $('#timeline-peak'), table: $('#timeline-table') };
  renderTimeline(els, app.report, app.unit, width);
}

// The form is built in the task after the first answer is painted: building its inputs takes 50 to 120 ms
// here, and the first numbers need none of them (page budget: docs/performance.md). Scheduled before the sections below
// the first screen (renderResults), so that the inputs come first; after the first verdict is on screen when the
// first answer has one (after-paint.js). #inputs[data-form] is "pending" until it is built, then "built"; the
// fields' errors and resolved values of the answer then shown are put in place.
function buildFormAfterPaint(firstVerdict = false) {
  const inputs = $('#inputs');
  if (embed || inputs.dataset.form !== 'pending') return;
  inputs.dataset.form = 'building';
  afterPaint(() => {
    wireForm();
    syncForm(form, app.presets, app.entries, true);
    showInForm();
    updateMenus(form, app.engine, toScenario(app.entries));
    inputs.dataset.form = 'built';
  }, { firstVerdict });
}

// The answer shown in the form, once it is built: each error at its input, or the values the engine
// resolved; what the plan derives (from the last plan that worked, marked stale while there are errors).
function showInForm() {
  if (embed || !form.firstChild) return;
  if (app.errors) showFieldErrors(form, app.errors);
  else {
    clearFieldErrors(form);
    showResolved(form, app.report.scenario);
  }
  if (app.report) renderDerived($('#derived'), app.report);
  $('#derived').classList.toggle('stale', !!app.errors);
}

function showReport(report) {
  const first = !app.report;
  buildFormAfterPaint(first);
  app.report = report;
  app.errors = null;
  $('#engine-error').hidden = true;
  $('#engine-error').textContent = '';
  $('#summary-error').hidden = true;
  if (app.edited) linkError('');
  $('#results').classList.remove('stale');
  $('#summary').classList.remove('stale');
  $('#results').classList.add('has-report');
  $('#pin').disabled = false;
  showInForm();
  renderResults(first);
  setStatus('ready', 'Up to date');
}

// An error's field in words ("Tensor parallel (tp)"), or its JSON pointer when no input has that path.
function fieldName(path) {
  return FIELDS.get(dotted(path))?.label || path;
}

// Every problem the engine found, at once: each next to its input and all of them, in words, in the banner.
function showError(errors) {
  buildFormAfterPaint();
  app.errors = errors;
  showInForm();
  const box = $('#engine-error');
  box.hidden = false;
  const line = (e) => h('li', { 'data-error-path': e.path }, e.path ? [h('strong', {}, fieldName(e.path)), `: ${e.message}`] : e.message);
  box.replaceChildren(
    h('p', {}, errors.length > 1 ? `${errors.length} problems with this plan; the figures below are from the last plan that worked:`
      : 'A problem with this plan; the figures below are from the last plan that worked:'),
    h('ul', {}, errors.map(line)));
  if (!embed) offerFixes(box, errors);
  // The answer bar says so too, on every screen: its figures are the last valid plan's, never this one's.
  const first = errors[0];
  $('#summary-error').hidden = false;
  $('#summary-error').textContent = `⚠ ${first.path ? `${fieldName(first.path)}: ` : ''}${first.message}` +
    (errors.length > 1 ? ` (and ${errors.length - 1} more)` : '') +
    (app.report ? ' — figures are from the last valid plan' : ' — no figures yet');
  $('#results').classList.add('stale');
  $('#summary').classList.add('stale');
  $('#pin').disabled = true; // only a plan the engine accepts can be pinned
  if (!app.report) $('#headline').textContent = 'No result yet: the engine rejected the input.';
  setStatus('error', errors.length > 1 ? `${errors.length} input errors` : 'Input error');
  $('#markdown-output').value = markdownRefusal();
}

// Each error at a plan field gets the engine's nearest accepted value as a one-click fix ("Use 1"): adapt.js.
let fixSeq = 0;
async function offerFixes(box, errors) {
  const id = ++fixSeq;
  try {
    const chunk = await (adaptChunk ??= import('./adapt.js'));
    await chunk.offerFixes(app.engine, box, planFields(), setFromEngine, () => id === fixSeq);
  } catch {
    // no fix offered: the errors still say what to change
  }
}

// Why there is no Markdown to copy: the export describes a plan the engine accepted, never a stale one.
function markdownRefusal() {
  const n = app.errors?.length || 0;
  return n ? `No Markdown: the plan has ${n === 1 ? 'an error' : `${n} errors`} (${app.errors.map((e) => fieldName(e.path || '/')).join(', ')}); fix ${n === 1 ? 'it' : 'them'} to export the results.`
    : 'No Markdown yet: the engine has not answered.';
}

// Typing a number is not a plan until the reader pauses: "2" on the way to "2.5", or "2." (which the browser
// cannot read yet), is never evaluated or written into the link. A pause of TYPING_MS takes what the field holds.
// Another field's input, or leaving the field, applies it at once.
const TYPING_MS = 300;
let typing = null; // {el, timer}: the number field being typed in
function flushTyping() {
  if (!typing) return;
  clearTimeout(typing.timer);
  const { el } = typing;
  typing = null;
  applyInput(el);
}
function onInput(event) {
  const el = event.target;
  if (!el.dataset?.path) return;
  const value = readInput(el); // before a flush: applying the other field syncs the whole form, this one included
  if (typing?.el !== el) flushTyping();
  else clearTimeout(typing.timer);
  if (el.type === 'number' && /^(insert|delete)/.test(event.inputType || '')) {
    setStatus('busy', 'Waiting for you to finish typing…');
    typing = { el, timer: setTimeout(flushTyping, TYPING_MS) };
    return;
  }
  typing = null;
  applyInput(el, value);
}

function applyInput(el, value = readInput(el)) {
  const path = el.dataset.path;
  const world = app.report?.derived?.world_size;
  showAdapted([]); // a note about the last choice's moves is kept only until the next edit
  if (FIELDS.get(path).type === 'preset') {
    const section = path.split('.')[0];
    if (app.entries[path] === value) return;
    setPreset(app.presets, app.entries, section, value, inputPaths(form, section));
    return adaptToChoice(world, section === 'hardware');
  }
  setField(app.presets, app.entries, path, value);
  if (path === 'framework') return adaptToChoice(world);
  // An adapter moves the plan to a framework and a split PEFT runs (the engine's rules, adapt.js).
  if (path === 'adapter.method' && value && value !== 'none') return adaptToChoice(world, false, true);
  syncForm(form, app.presets, app.entries);
  app.edited = true;
  changed();
}

// Every choice of a model, device or framework gives an answer: a device that refuses the framework (a TPU runs
// xla only) takes one it runs, and the plan's fields the choice breaks move to the nearest values the engine accepts
// (adapt.js, a chunk fetched on the first choice); one line in the answer bar says what moved and why, and Undo
// puts them back (the choice stays, with its errors and their fixes).
let adaptChunk = null;
async function adaptToChoice(world, device = false, adapter = false) {
  const id = ++app.choice;
  syncForm(form, app.presets, app.entries);
  app.edited = true;
  setStatus('busy', 'Adapting the plan…');
  dropPendingAnswer(); // the plan before the choice is no longer the form's: its answer must not say "ready"
  const before = structuredClone(app.entries);
  // The moves are made on a copy, taken only if nothing else changed the plan meanwhile (changed() counts app.choice).
  const work = structuredClone(app.entries);
  let changes = [];
  try {
    const chunk = await (adaptChunk ??= import('./adapt.js'));
    changes = await chunk.adaptToChoice(app.engine, planFields(work), world, device, adapter);
  } catch {
    changes = []; // the plan is evaluated as chosen: its errors say what to change
  }
  flushTyping(); // a number typed meanwhile is an edit: applied (which drops these moves), never overwritten
  if (id !== app.choice) return;
  if (changes.length) app.entries = work;
  showAdapted(changes, before);
  syncForm(form, app.presets, app.entries);
  changed();
}

// A value the engine offered (a stepper's next value, an error's fix): the field set as the reader would set it.
function setFromEngine(path, value) {
  flushTyping();
  setField(app.presets, app.entries, path, value);
  syncForm(form, app.presets, app.entries);
  app.edited = true;
  changed();
}

// The form's plan as adapt.js reads and moves it: a field's value is what the form shows, else what the engine
// resolved it to in the last answer.
function planFields(entries = app.entries) {
  return {
    scenario: () => toScenario(entries),
    value: (path) => effective(app.presets, entries, path) ?? dig(app.report?.scenario, path),
    set: (path, value) => setField(app.presets, entries, path, value),
  };
}

// The line in the answer bar that says what the last choice moved, with Undo (`before`: the entries before the moves).
function showAdapted(changes, before) {
  const note = $('#adapt-note');
  note.hidden = !changes.length;
  if (!changes.length) note.replaceChildren();
  else adaptChunk.then((chunk) => chunk.showMoves(note, changes, () => {
    app.entries = before;
    showAdapted([]);
    syncForm(form, app.presets, app.entries);
    app.edited = true;
    changed();
  }));
}

// Why the engine refused a config.json: each problem at its key ("num_local_experts: 8 experts: ...").
function importRefusal(result) {
  const errors = result.errors ?? [result.error];
  return `Nothing imported: ${list(errors.map((e) => (e.path ? `${dotted(e.path)}: ${e.message}` : e.message)))}.`;
}

// A Hugging Face config.json, read by the engine (engine/io/import/hf_config.h, the same mapping as
// `shardcalc import`): its model fields become a Custom model, or the message says why it was refused.
async function importHf() {
  const note = $('#hf-import-message');
  let result;
  try {
    result = await app.engine.importConfig($('#hf-config').value);
  } catch (err) {
    note.textContent = `This config could not be read: ${err.message}`; // never a silent no-op
    return;
  }
  if (!result.ok) {
    note.textContent = importRefusal(result);
    return;
  }
  flushTyping(); // a number typed meanwhile is applied before the form shows the imported model
  for (const p of Object.keys(app.entries)) if (p.startsWith('model.')) delete app.entries[p];
  app.entries['model.preset'] = '';
  for (const [k, v] of Object.entries(result.model)) app.entries[`model.${k}`] = v;
  syncForm(form, app.presets, app.entries, true);
  note.textContent = `Imported the ${result.label} config as a Custom model.` +
    (result.unknown.length ? ` Not understood: ${list(result.unknown)}.` : '') +
    (result.notes.length ? ` Note: ${result.notes.join(' ')}` : '');
  app.edited = true;
  changed();
}

// A source's text with its web addresses and arXiv numbers as links (opened in a new tab), the rest as text.
function linked(text) {
  return text.split(/(https?:\/\/[^\s,;()]+[^\s,;().]|arXiv:\d{4}\.\d{4,5})/).map((part, i) => {
    if (i % 2 === 0) return part;
    const href = part.startsWith('arXiv:') ? `https://arxiv.org/abs/${part.slice(6)}` : part;
    return h('a', { href, target: '_blank', rel: 'noopener' }, part);
  });
}

// Whole plans people know (presets/plans: published runs, each with its source): choosing one loads its
// scenario as a #scenario= link would, so every field follows it and the share link carries it.
function wirePlanPresets() {
  const select = $('#plan-preset');
  const plans = app.presets.plans || [];
  select.append(...plans.map((p) => h('option', { value: p.id }, p.scenario.name || p.id)));
  let sources = null; // the core carries no plan sources: presets/plan-sources.json (web/build.mjs), fetched once
  select.addEventListener('change', async () => {
    const plan = plans.find((p) => p.id === select.value);
    $('#plan-source').hidden = !plan;
    $('#plan-source').replaceChildren();
    if (!plan) return;
    const { source, ...scenario } = plan.scenario;
    window.location.hash = `scenario=${encodeURIComponent(JSON.stringify(scenario))}`;
    sources ??= source ? Promise.resolve({}) : fetch('presets/plan-sources.json').then((r) => r.json()).catch(() => ({}));
    const text = source ?? (await sources)[plan.id];
    if (select.value === plan.id && text) $('#plan-source').replaceChildren('Source: ', ...linked(text));
  });
}

// A config.json is a few kilobytes; a dropped file much larger than that is not one.
const MAX_CONFIG_BYTES = 1 << 20;

function wireForm() {
  buildForm(form, app.presets);
  form.addEventListener('input', onInput); // selects and checkboxes fire 'input' too
  // An emptied input shows the value it returned to once the reader leaves it.
  form.addEventListener('focusout', () => {
    flushTyping();
    syncForm(form, app.presets, app.entries);
  });
  wireSteppers(form, app.engine, (path) => {
    const plan = planFields();
    return { scenario: plan.scenario(), value: plan.value(path) };
  }, setFromEngine);
  form.addEventListener('submit', (e) => e.preventDefault());
  // A size suffix typed after a number (4k, 300B) multiplies it (size-suffix.js); the field then holds the number.
  form.addEventListener('keydown', (e) => {
    const el = e.target;
    if (el.type !== 'number' || !/^[kmbgt]$/i.test(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    import('./size-suffix.js').then(({ withSuffix }) => {
      const v = withSuffix(el.value, e.key, FIELDS.get(el.dataset.path)?.type === 'int');
      if (v === null) return;
      el.value = String(v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
  });
  $('#hf-import').addEventListener('click', importHf);
  const area = $('#hf-config');
  area.addEventListener('dragover', (e) => e.preventDefault());
  area.addEventListener('drop', async (e) => {
    const file = e.dataTransfer?.files?.[0];
    if (!file) return;
    e.preventDefault();
    if (file.size > MAX_CONFIG_BYTES) {
      $('#hf-import-message').textContent = `${file.name} is ${count(file.size)} bytes: too large for a config.json (at most ${count(MAX_CONFIG_BYTES)}).`;
      return;
    }
    try {
      area.value = await file.text();
    } catch (err) {
      $('#hf-import-message').textContent = `${file.name} could not be read: ${err.message}`;
      return;
    }
    importHf();
  });
}

function wireShare() {
  const note = $('#share-note');
  $('#copy-link').addEventListener('click', () => copyText(pageUrl(fragment(), false), $('#share-url'), note));
  $('#copy-iframe').addEventListener('click', () => copyText(iframeSnippet(fragment()), $('#iframe-snippet'), note));
  // Always does something: copies the current plan's Markdown, or says why there is none.
  $('#copy-markdown').addEventListener('click', async () => {
    if (!app.report || app.errors) {
      note.textContent = markdownRefusal();
      return;
    }
    const text = await loadMarkdown();
    if (text) copyText(text, $('#markdown-output'), note);
    else note.textContent = 'The plan changed while its Markdown was written: press Copy Markdown again.';
  });
}

// `enginePromise`: createEngine(), started by main.js before this module graph loaded.
export async function start(enginePromise) {
  document.body.classList.toggle('embed', embed);
  if (embed) {
    $('#inputs').remove();
    reportHeight();
  }
  renderLegend($('#chart-legend'));
  try {
    app.engine = await enginePromise;
  } catch (err) {
    setStatus('error', `The engine could not start: ${err.message}`);
    return;
  }
  app.presets = app.engine.presets;
  document.body.dataset.engineThread = app.engine.thread; // heavy work belongs off the main thread: visible to tests
  $('#engine-version').textContent = `Engine ${app.engine.version}.`;
  await loadFragment();
  evaluateNow(); // the form is built once the first answer is painted (buildFormAfterPaint)
  if (!embed) wirePlanPresets();
  if (!embed) watchLowerCharts();
  wireShare();
  if (!embed) {
    const search = wireSearch({
      engine: app.engine,
      framework: () => app.entries.framework,
      scenario: () => toScenario(app.entries),
      report: () => app.report,
      unit: () => app.unit,
      load: loadPlan,
      saved: (settings) => {
        app.search = settings;
        changed(false);
      },
    });
    search.show(app.search ?? {});
    if (app.search) search.offer(); // a shared link carries its search: shown, run on the reader's click
  }
  updateShareFields();
  $('#timeline-stage').addEventListener('change', (e) => {
    setTimelineStage(Number(e.target.value));
    if (app.report) drawTimeline();
  });
  $('#link-error-dismiss').addEventListener('click', () => linkError(''));
  $('#kernels').addEventListener('toggle', renderKernelTable);
  $('#reconcile').addEventListener('toggle', openReconcile);
  $('#serving').addEventListener('toggle', openServing);
  $('#mode-train').addEventListener('click', () => setMode('train'));
  $('#mode-serve').addEventListener('click', () => setMode('serve'));
  $('#rl').addEventListener('toggle', openRl);
  $('#pin').addEventListener('click', () => setPin(app.entries));
  $('#unpin').addEventListener('click', () => setPin(null));
  $('#unit').addEventListener('change', () => {
    app.unit = $('#unit').value;
    renderResults();
    changed(false);
  });
  window.addEventListener('hashchange', () => {
    if (window.location.hash === fragment()) return;
    // A contents link (#time-title) has scrolled to its section: the state goes back into the URL.
    const target = window.location.hash.slice(1);
    if (target && !target.includes('=') && document.getElementById(target)) {
      window.history.replaceState(null, '', fragment());
      return;
    }
    loadFragment().then(() => changed());
  });
  // The charts are drawn at the container's width; redraw when that changes (not when the observer
  // first reports the width they were drawn at).
  new ResizeObserver(() => {
    if (!app.report || $('#chart-box').clientWidth === app.chartWidth) return;
    drawStageChart();
    if (!embed) drawBelowCharts();
  }).observe($('#chart-box'));
}
