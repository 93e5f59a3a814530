// "Compare with my run": a run's log set beside the plan's estimate, as the engine reconciles them
// (engine/report/reconcile.h through io/api.h reconcile_text): every figure is the engine's; the only arithmetic
// here is unit scaling for display. A chunk of its own, fetched when the reader opens the section (app.js), with
// the whole engine behind it. It imports nothing: app.js hands it the page's helpers (kernel-view.js says why).
// The log stays in the browser: it goes to the page's own worker and nowhere else.

const TERMS = [
  ['peak_allocated', 'Peak allocated', 'max allocated: the largest amount the step held at once'],
  ['allocator_reserve', 'Allocator reserve', 'reserved beyond allocated at the peak: the caching allocator\'s cached blocks (our fragmentation)'],
  ['peak_reserved', 'Peak reserved', 'max reserved: what the caching allocator held from the device'],
  ['device_used', 'Device in use', 'nvidia-smi\'s memory in use, against our total: reserved plus the memory outside the allocator'],
];

// An out-of-memory error's figures, each with its column's label and title (the engine's out_of_memory object).
const FAILED = [
  ['request', 'Request', '"Tried to allocate": the segment the allocator asked the device for'],
  ['allocated', 'Allocated', 'allocated by PyTorch when it failed'],
  ['cached', 'Cached', 'reserved by PyTorch but unallocated: the cache left after the allocator freed what it could'],
  ['free', 'Free', 'free on the device when it failed'],
  ['capacity', 'Capacity', 'the device\'s total as CUDA reports it'],
];

let last = null; // the log of the last comparison, compared again when the plan or the unit changes

// Builds the section's contents once (index.html holds its title only, the page's first download stays small) and
// wires them: #reconcile[data-state] is "ready", then "loading" and "drawn" for each comparison. `page`: {engine,
// report(), unit(), calibrate(fields), h, bytes, duration, fixed, percent}.
export function wireReconcile(page) {
  const { h } = page;
  const box = document.querySelector('#reconcile');
  const area = h('textarea', { id: 'run-log', rows: 6, spellcheck: 'false', 'aria-label': 'Run log' });
  const file = h('input', { type: 'file', id: 'run-log-file', accept: '.log,.txt,text/plain' });
  box.append(
    h('p', { class: 'muted' }, 'Paste the log of a run of this plan, or choose or drop its file: Megatron-LM\'s memory and ' +
      'iteration lines and its theoretical memory report, DeepSpeed\'s see_memory_usage lines, PyTorch\'s ' +
      'torch.cuda.memory_summary() tables, PyTorch\'s out-of-memory errors, nvidia-smi\'s GPU table, DeepSpeed\'s throughput timer, ' +
      'Hugging Face\'s Trainer\'s final metrics, torchtitan\'s metrics lines, NeMo\'s progress lines. ' +
      'The engine sets each reported rank beside this ' +
      'estimate, here in the browser: the log is sent nowhere.'),
    area,
    h('div', { class: 'reconcile-actions' }, h('label', null, 'Log file ', file), h('button', { type: 'button', id: 'reconcile-run' }, 'Compare')),
    h('p', { id: 'reconcile-status', role: 'status' }),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'The run against the estimate' }, h('table', { id: 'reconcile-table' })),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Out-of-memory errors' }, h('table', { id: 'reconcile-oom' })),
    h('ul', { id: 'reconcile-notes' }));
  const read = (f) => f && f.text().then((text) => { area.value = text; compare(page); });
  file.addEventListener('change', () => read(file.files[0]));
  area.addEventListener('dragover', (e) => e.preventDefault());
  area.addEventListener('drop', (e) => {
    e.preventDefault();
    read(e.dataTransfer.files[0]);
  });
  box.querySelector('#reconcile-run').addEventListener('click', () => compare(page));
  box.dataset.state = 'ready';
}

// Compares the section's log with the current plan, again after a new report or unit (app.js) once a log was compared.
export function refreshReconcile(page) {
  if (last !== null) compare(page);
}

async function compare(page) {
  const box = document.querySelector('#reconcile');
  const status = box.querySelector('#reconcile-status');
  const text = box.querySelector('#run-log').value;
  const report = page.report();
  if (!text.trim()) {
    status.textContent = 'Paste a log, or choose its file, first.';
    return;
  }
  if (!report) {
    status.textContent = 'The plan has an error: there is no estimate to compare with.';
    return;
  }
  last = text;
  box.dataset.state = 'loading';
  status.textContent = 'Comparing…';
  let answer;
  try {
    answer = await page.engine.reconcile(report.scenario, text);
  } catch (error) {
    answer = { ok: false, error: { message: error.message } };
  }
  if (page.report() !== report || box.querySelector('#run-log').value !== text) return; // a newer comparison draws
  render(box, answer, page);
  box.dataset.state = 'drawn';
}

function render(box, answer, { h, bytes, duration, fixed, percent, unit, calibrate }) {
  const table = box.querySelector('#reconcile-table');
  const failedTable = box.querySelector('#reconcile-oom');
  const notes = box.querySelector('#reconcile-notes');
  const status = box.querySelector('#reconcile-status');
  if (!answer.ok) {
    status.textContent = `No comparison: ${answer.error.message}`;
    table.replaceChildren();
    failedTable.replaceChildren();
    notes.replaceChildren();
    return;
  }
  const r = answer.reconciliation;
  const u = unit();
  const terms = TERMS.filter(([key]) => r.ranks.some((x) => x[key])); // the terms some rank's log gives
  const cell = (value, key) => h('td', { class: 'num', 'data-reconcile': key, 'data-value': value }, bytes(value, u));
  const head = [
    h('tr', { class: 'group-head' }, h('th', { scope: 'colgroup', colspan: 2 }, 'Reported rank'),
      ...terms.map(([, label, title]) => h('th', { scope: 'colgroup', colspan: 3, title }, `${label} (${u})`))),
    h('tr', null, h('th', { scope: 'col' }, 'Rank'), h('th', { scope: 'col' }, 'Stage'),
      ...terms.flatMap(() => [['Log'], ['Estimate'], ['Gap', 'estimate − log']].map(([label, title]) =>
        h('th', { scope: 'col', class: 'num', title: title || null }, label)))),
  ];
  const rows = r.ranks.map((x, i) => h('tr', null, h('td', { class: 'num' }, String(x.rank)), h('td', { class: 'num' }, String(x.stage)),
    ...terms.flatMap(([key]) => ['log', 'estimate', 'gap'].map((part) => x[key]
      ? cell(x[key][part], `ranks.${i}.${key}.${part}`) : h('td', { class: 'num' }, '—')))));
  table.replaceChildren(...(terms.length ? [h('caption', { class: 'sr-only' }, `${r.source} log against the estimate, per reported rank`),
    h('thead', null, ...head), h('tbody', null, ...rows)] : []));
  // Each out-of-memory error: the device when it failed, why, and what the rank needed against the estimate's peak.
  const failed = r.ranks.map((x, i) => [x, i]).filter(([x]) => x.out_of_memory);
  failedTable.replaceChildren(...(failed.length ? [
    h('caption', null, `Out-of-memory errors (${u})`),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Rank'),
      ...FAILED.map(([, label, title]) => h('th', { scope: 'col', class: 'num', title }, label)),
      h('th', { scope: 'col', title: 'why the request failed, from these figures' }, 'Cause'),
      ...[['Needed', 'allocated + request: the least the rank needed when it failed'], ['Estimate', 'the estimate\'s allocated peak for the rank\'s stage'],
        ['Gap', 'estimate − needed']].map(([label, title]) => h('th', { scope: 'col', class: 'num', title }, label)))),
    h('tbody', null, ...failed.map(([x, i]) => h('tr', null, h('td', { class: 'num' }, String(x.rank)),
      ...FAILED.map(([key]) => cell(x.out_of_memory[key], `ranks.${i}.out_of_memory.${key}`)),
      h('td', { 'data-reconcile': `ranks.${i}.out_of_memory.cause` }, x.out_of_memory.cause.replace('_', ' ')),
      ...['log', 'estimate', 'gap'].map((part) => cell(x.out_of_memory.needed[part], `ranks.${i}.out_of_memory.needed.${part}`))))),
  ] : []));
  const lines = [];
  if (r.framework_estimate) {
    const f = r.framework_estimate.framework;
    const o = r.framework_estimate.ours;
    lines.push(`The framework's own estimate (first stage): weights and optimizer ${bytes(f.weights_and_optimizer, u)}, ` +
      `activations ${bytes(f.activations, u)}, total ${bytes(f.total, u)} ${u}; ours the same way: ${bytes(o.weights_and_optimizer, u)}, ` +
      `${bytes(o.activations, u)}, ${bytes(o.total, u)} ${u}.`);
  }
  if (r.step_seconds) {
    const t = r.step_seconds;
    const over = t.log_reports === 1 ? 'one report' : `median of ${t.log_reports} reports`;
    lines.push(`Step time: log ${duration(t.log)} (${over}${t.log_first_dropped ? ' after the first' : ''}), estimate ` +
      `${duration(t.estimate)} (${t.error >= 0 ? '+' : ''}${fixed(100 * t.error, 1)} %).`);
  }
  lines.push(...r.findings.map((x) => `${x[0].toUpperCase()}${x.slice(1)}.`));
  lines.push(...r.unknowns.map((x) => `The log cannot tell ${x}.`));
  const items = lines.map((line) => h('li', null, line));
  // What the log implies for this cluster (scenario fields by path), kept in the plan (and its link) on request.
  const fraction = r.calibration['implementation.fragmentation'];
  const overhead = r.calibration['hardware.overhead_gib'];
  const capacity = r.calibration['hardware.memory_gib'];
  const gemms = r.calibration['hardware.matmul_efficiency'];
  const said = [];
  if (fraction !== undefined) said.push(`the caching allocator's reserve is ${percent(fraction)} of the allocated peak`);
  if (overhead !== undefined) said.push(`the memory outside the allocator is ${bytes(overhead * 2 ** 30, u)} ${u}`);
  if (capacity !== undefined) said.push(`the device holds ${bytes(capacity * 2 ** 30, u)} ${u} as CUDA reports it`);
  if (gemms !== undefined) said.push(`its GEMMs reach ${percent(gemms)} of the peak (with which the estimate's step is the log's)`);
  const launch = r.calibration['implementation.host_forward_us'];
  if (launch !== undefined) {
    said.push(`the host takes ${fixed(launch, 1)} µs a forward launch and ${fixed(r.calibration['implementation.host_backward_us'], 1)} µs ` +
      'a backward one (with which the estimate\'s step is the log\'s)');
  }
  if (said.length) {
    const use = h('button', { type: 'button', id: 'reconcile-calibrate' }, 'Use these figures for this cluster');
    use.addEventListener('click', () => calibrate(r.calibration));
    items.push(h('li', null, `By this log (the largest of its ranks), ${said.join(' and ')}; the estimate uses figures ` +
      'measured elsewhere unless you keep these. ', use));
  }
  notes.replaceChildren(...items);
  const oom = failed.length ? ` ${failed.length === 1 ? 'One' : failed.length} ran out of memory.` : '';
  status.textContent = r.ranks.length
    ? `${r.source} log: ${r.ranks.length === 1 ? 'one rank' : `${r.ranks.length} ranks`} reported memory.${oom}`
    : `${r.source} log: no rank reported memory.`;
}
