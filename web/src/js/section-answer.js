// What the page's lazily built sections that ask the whole engine share ("Serve this model", "Post-train with RL"):
// asking for a section's answer so that only the newest question is drawn, an answer's errors in words, and a pasted
// log's comparison with the estimate.

const latest = new WeakMap();

// Asks `ask()` for the answer of the section `box` (its <details>), which says data-state="loading" meanwhile; resolves
// to the answer, an engine failure as the error value, or to null when a newer question was asked of the same section.
export async function askFor(box, ask) {
  const id = (latest.get(box) ?? 0) + 1;
  latest.set(box, id);
  box.dataset.state = 'loading';
  const answer = await answerOf(ask);
  return latest.get(box) === id ? answer : null;
}

// The engine's answer to `ask()`, or a failure of the engine itself as the error value.
async function answerOf(ask) {
  try {
    return await ask();
  } catch (err) {
    return { ok: false, error: { path: '', message: `engine failure: ${err.message}` } };
  }
}

// An answer's errors in words, each with its field's path.
export const reasons = (answer) => (answer.errors ?? [answer.error]).map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ');

// A pasted log against the estimate (the engine's serving or RL reconciliation, whose JSON shares its shape): asks
// `ask()`, then draws each term as a row of log, estimate and gap (`cell(term, value)` formats a figure) in `table`,
// and its findings, what it implies (`implied(value)` formats a field's value) and what it cannot tell in `status`.
// box[data-log] is "running", then "drawn" or "error". Resolves to the reconciliation, or null when the engine
// refused the log.
export async function compareWithLog({ h, box, table, status, caption = null, cell, implied }, ask) {
  box.dataset.log = 'running';
  const answer = await answerOf(ask);
  if (!answer.ok) {
    status.textContent = `Not compared: ${reasons(answer)}.`;
    table.replaceChildren();
    box.dataset.log = 'error';
    return null;
  }
  const r = answer.serving_reconciliation ?? answer.rl_reconciliation;
  table.replaceChildren(...(caption ? [h('caption', null, caption(r))] : []),
    h('thead', null, h('tr', null, ...['Term', 'Log', 'Estimate', 'Estimate − log'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, ...r.terms.map((t) => h('tr', { 'data-term': t.key },
      h('th', { scope: 'row' }, t.label), h('td', null, cell(t, t.log)), h('td', null, cell(t, t.estimate)),
      h('td', { 'data-value': String(t.gap) }, cell(t, t.gap))))));
  const fields = Object.entries(r.calibration).map(([key, value]) => `${key} = ${implied(value)}`);
  status.textContent = [...r.findings, fields.length ? `What the log implies for the scenario: ${fields.join('; ')}` : '',
    ...r.unknowns.map((u) => `Not in the log: ${u}`)].filter(Boolean).join('. ') + '.';
  box.dataset.log = 'drawn';
  return r;
}

// What a compared log implies (its "calibration"), kept: the section's own fields (keys starting with `prefix`, as
// "rl." or "serving.") in its inputs (`inputOf(field)`) and, through `page.saved(request())`, the link; the plan's
// (hardware., implementation.) in the form through `page.calibrate`, whose new estimate refreshes the section; else
// `refresh()` does.
export function keepImplied(implied, prefix, inputOf, page, request, refresh) {
  const plan = {};
  for (const [key, value] of Object.entries(implied)) {
    if (!key.startsWith(prefix)) plan[key] = value;
    else if (inputOf(key.slice(prefix.length))) inputOf(key.slice(prefix.length)).value = String(value);
  }
  page.saved(request());
  if (Object.keys(plan).length) page.calibrate(plan);
  else refresh();
}

// A section's "Compare with my … log" block: its title, a hint, the log's text box, the Compare and Keep buttons, the
// status line and the table; ids from `prefix` (#prefix-log, -log-run, -log-keep, -log-status, -log-table), `what`
// the log's name for the labels.
export function logBox(h, prefix, title, hint, what) {
  return [
    h('h4', null, title),
    h('p', { class: 'muted' }, hint),
    h('textarea', { id: `${prefix}-log`, rows: 6, cols: 80, 'aria-label': what }),
    h('button', { id: `${prefix}-log-run`, type: 'button' }, 'Compare'),
    h('button', { id: `${prefix}-log-keep`, type: 'button', hidden: '' }, 'Keep what the log implies'),
    h('p', { id: `${prefix}-log-status`, role: 'status' }),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': `${what} against the estimate` },
      h('table', { id: `${prefix}-log-table` })),
  ];
}
