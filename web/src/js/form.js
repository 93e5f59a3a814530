// The form: built from the field catalogue, synced from the state, read back field by field.
// Each control has id f-<section>-<field> and name = the field's JSON pointer, so an engine
// error path finds its input directly.
import { h } from './dom.js';
import { FIELDS, SECTIONS, inputId, isOverride, listOfIntegers, listOfNames, loadHelp, pointer } from './fields.js';
import { effective } from './state.js';
import { addHints, updateHints } from './form-hints.js';

function control(path, spec, presets) {
  const common = { id: inputId(path), name: pointer(path), 'data-path': path };
  if (spec.type === 'preset') {
    const list = path === 'model.preset' ? presets.models : presets.hardware;
    return h('select', common, list.map((p) => h('option', { value: p.id }, p.name || p.id)), h('option', { value: '' }, 'Custom'));
  }
  if (spec.options) {
    const blank = spec.key === 'framework' ? null : h('option', { value: '', 'data-default': spec.fw ? 'framework default' : 'default' }, spec.fw ? 'framework default' : 'default');
    return h('select', common, blank, spec.options.map((o) => h('option', { value: o }, o)));
  }
  if (spec.type === 'bool') return h('input', { ...common, type: 'checkbox' });
  // A list of integers ("7, 8, 8, 7"), written as text.
  if (spec.type === 'ints') return h('input', { ...common, type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false' });
  // A list of names ("layernorm, moe_act"), written as text.
  if (spec.type === 'names') return h('input', { ...common, type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const isInt = spec.type === 'int';
  return h('input', { ...common, type: 'number', step: isInt ? 1 : 'any', min: 0, inputmode: isInt ? 'numeric' : 'decimal' });
}

// The "?" after a label: a disclosure button (pointer, touch) that shows the field's help and a link to
// the docs section (docs/<page>.html#<anchor>, rendered by web/build.mjs; opened only when followed).
// Escape closes it again. It is out of the Tab order (the help is already the input's description: one stop a
// field); from the keyboard, F1 or "?" in the input opens or closes it, and Escape in the help returns to the
// input. An open help widens its field to the whole row of the grid. Every input has
// help (tests/web/docs-links.test.mjs); its text arrives with fields.js loadHelp, which the form starts
// on the reader's first pointer or focus inside it, or on a "?" (`form.dataset.help` = "loaded" then).
const docHref = (doc) => `docs/${doc.replace(/\.md(?=#|$)/, '.html')}`;
function helpParts(path, spec, input) {
  const id = `${inputId(path)}-help`;
  const panel = h('p', { id, class: 'help', hidden: true });
  const toggle = (open) => {
    button.setAttribute('aria-expanded', String(open));
    panel.hidden = !open;
    button.closest('.field').classList.toggle('help-open', open);
  };
  const button = h('button', {
    type: 'button', class: 'help-toggle', tabindex: -1, 'aria-expanded': 'false', 'aria-controls': id, 'aria-label': `Help: ${spec.label}`,
    onclick: () => {
      const open = panel.hidden;
      if (panel.firstChild || !open) toggle(open);
      else withHelp(button.closest('form'), () => toggle(true));
    },
  }, '?');
  const escape = (e) => {
    if (e.key !== 'Escape' || panel.hidden) return;
    toggle(false);
    (e.currentTarget === button ? button : input).focus();
  };
  button.addEventListener('keydown', escape);
  panel.addEventListener('keydown', escape);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'F1' || e.key === '?') {
      e.preventDefault();
      button.click();
    } else escape(e);
  });
  return [button, panel];
}

// Puts each field's help into its panel and, as the tooltip, on its label and input (the input's
// accessible description).
function showHelp(form) {
  for (const el of form.querySelectorAll('[data-field]')) {
    const spec = FIELDS.get(el.dataset.field);
    if (!spec?.help) continue;
    const link = spec.doc ? h('a', { href: docHref(spec.doc), target: '_blank', rel: 'noopener' }, /^(memory|time|devices)\.md/.test(spec.doc) ? 'Formula' : 'Reference') : null;
    el.querySelector('.help').replaceChildren(spec.help, ...(link ? [' ', link] : []));
    el.querySelector('label').title = spec.help;
    el.querySelector('[data-path]').title = spec.help;
  }
  form.dataset.help = 'loaded';
}

function withHelp(form, then = () => {}) {
  loadHelp().then(() => {
    if (form.dataset.help !== 'loaded') showHelp(form);
    then();
  });
}

function field(path, spec, presets) {
  const input = control(path, spec, presets);
  const label = h('label', { for: input.id }, spec.label);
  const [button, panel] = helpParts(path, spec, input);
  const check = input.type === 'checkbox';
  return h('div', { class: check ? 'field check' : 'field', 'data-field': path },
    check ? [input, label, button, panel] : [h('div', { class: 'field-head' }, label, button), input, panel]);
}

export function buildForm(form, presets) {
  form.replaceChildren(field('framework', FIELDS.get('framework'), presets));
  for (const section of SECTIONS) {
    const paths = section.fields.map((f) => `${section.id}.${f.key}`);
    const main = paths.filter((p) => !FIELDS.get(p).more).map((p) => field(p, FIELDS.get(p), presets));
    const more = paths.filter((p) => FIELDS.get(p).more).map((p) => field(p, FIELDS.get(p), presets));
    form.append(
      h('fieldset', { id: `section-${section.id}` },
        h('legend', {}, section.legend),
        h('div', { class: 'grid' }, main),
        more.length ? h('details', { class: 'more' }, h('summary', {}, 'More'), h('div', { class: 'grid' }, more)) : null,
        h('p', { class: 'extras', 'data-extras-for': section.id, hidden: true })),
    );
    if (section.id === 'parallel') form.append(h('section', { id: 'derived', class: 'derived', 'aria-label': 'Derived from the plan' }));
  }
  // The config.json import (index.html's .import block) sits just under the model preset it replaces.
  const preset = form.querySelector('[data-field="model.preset"]');
  const hf = document.getElementById('hf-config')?.closest('.import');
  if (preset && hf) preset.after(hf);
  addHints(form);
  const start = () => withHelp(form);
  form.addEventListener('pointerover', start, { once: true });
  form.addEventListener('focusin', start, { once: true });
}

export const inputPaths = (form, section) =>
  [...form.querySelectorAll('[data-path]')].map((el) => el.dataset.path).filter((p) => p.startsWith(`${section}.`) && !p.endsWith('.preset'));

// The value an input stands for; undefined = empty (not set).
export function readInput(el) {
  const spec = FIELDS.get(el.dataset.path);
  if (el.type === 'checkbox') return el.checked;
  if (spec.type === 'int' || spec.type === 'num') {
    // Text the browser cannot hold as a finite number (1e400: an empty value with validity.badInput) goes to
    // the engine as text, so its error names the field and the range; it never reads as an emptied field.
    if (el.value === '') return el.validity?.badInput ? 'not a finite number' : undefined;
    const n = Number(el.value);
    return Number.isFinite(n) ? n : el.value;
  }
  if (el.value === '') return spec.type === 'preset' ? '' : undefined;
  if (spec.type === 'bool') return el.value === 'true';
  if (spec.type === 'ints') return listOfIntegers(el.value);
  if (spec.type === 'names') return listOfNames(el.value);
  return el.value;
}

// Shows the state in the form. The focused input keeps its text when it already means the same
// value (so "1." or "08" are not rewritten while typing). `reveal` opens "More" groups that hold set fields.
export function syncForm(form, presets, entries, reveal = false) {
  for (const el of form.querySelectorAll('[data-path]')) {
    const path = el.dataset.path;
    const spec = FIELDS.get(path);
    const v = effective(presets, entries, path);
    el.closest('.field').classList.toggle('is-override', isOverride(path) && path in entries);
    if (reveal && path in entries) el.closest('details')?.setAttribute('open', '');
    // An input being emptied stays empty while it has the focus (its placeholder shows the value it returns
    // to); it shows that value again once the reader moves on (app.js syncs on focusout).
    if (el === document.activeElement && (readInput(el) === (v ?? undefined) || readInput(el) === undefined)) continue;
    if (el.type === 'checkbox') el.checked = v ?? spec.def ?? false;
    else el.value = v == null ? '' : String(v);
  }
  for (const p of form.querySelectorAll('[data-extras-for]')) {
    const section = p.dataset.extrasFor;
    const extras = Object.keys(entries).filter((k) => k.startsWith(`${section}.`) && !FIELDS.get(k).input);
    p.hidden = extras.length === 0;
    p.textContent = extras.length ? `Also set by the link: ${extras.map((k) => `${k.slice(section.length + 1)} = ${entries[k] ?? 'unset'}`).join(', ')}` : '';
  }
  updateHints(form);
}

// Empty inputs show what the engine resolved them to (report.scenario), as placeholder or
// in the select's "default" option.
export function showResolved(form, resolved) {
  for (const el of form.querySelectorAll('[data-path]')) {
    const v = el.dataset.path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), resolved);
    const shown = v == null ? '' : String(v);
    if (el.type === 'number') el.placeholder = shown;
    const blank = el.querySelector?.('option[data-default]');
    if (blank) blank.textContent = shown ? `${blank.dataset.default} (${shown})` : blank.dataset.default;
  }
}

export function clearFieldErrors(form) {
  for (const n of form.querySelectorAll('[data-error-for]')) n.remove();
  for (const el of form.querySelectorAll('[aria-invalid]')) {
    el.removeAttribute('aria-invalid');
    el.removeAttribute('aria-describedby');
  }
}

// Puts each engine error next to the input whose name is its path (all of them at once: the engine reports
// every problem of the input); returns the errors that have no input (they show in the banner only).
export function showFieldErrors(form, errors) {
  clearFieldErrors(form);
  const inputs = [...form.querySelectorAll('[data-path]')];
  const unplaced = [];
  errors.forEach((error, i) => {
    const el = inputs.find((e) => e.name === error.path);
    if (!el) {
      unplaced.push(error);
      return;
    }
    const id = `${el.id}-error-${i}`;
    el.closest('details')?.setAttribute('open', '');
    el.setAttribute('aria-invalid', 'true');
    el.setAttribute('aria-describedby', [el.getAttribute('aria-describedby'), id].filter(Boolean).join(' '));
    // Not a live region: #engine-error announces the errors once; the field's aria-describedby reads this one on focus.
    el.closest('.field').append(h('p', { id, class: 'field-error', 'data-error-for': error.path }, error.message));
  });
  return unplaced;
}
