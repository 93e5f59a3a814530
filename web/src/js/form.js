// The form: built from the field catalogue, synced from the state, read back field by field.
// Each control has id f-<section>-<field> and name = the field's JSON pointer, so an engine
// error path finds its input directly.
import { h } from './dom.js';
import { FIELDS, SECTIONS, inputId, isOverride, pointer } from './fields.js';
import { effective } from './state.js';

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
  const isInt = spec.type === 'int';
  return h('input', { ...common, type: 'number', step: isInt ? 1 : 'any', min: 0, inputmode: isInt ? 'numeric' : 'decimal' });
}

function field(path, spec, presets) {
  const input = control(path, spec, presets);
  // The help text is the tooltip of both the label and the input (the input's accessible description).
  if (spec.help) input.title = spec.help;
  const label = h('label', { for: input.id, title: spec.help }, spec.label);
  const check = input.type === 'checkbox';
  return h('div', { class: check ? 'field check' : 'field', 'data-field': path }, check ? [input, label] : [label, input]);
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
    if (el === document.activeElement && readInput(el) === (v ?? undefined)) continue;
    if (el.type === 'checkbox') el.checked = v ?? spec.def ?? false;
    else el.value = v == null ? '' : String(v);
  }
  for (const p of form.querySelectorAll('[data-extras-for]')) {
    const section = p.dataset.extrasFor;
    const extras = Object.keys(entries).filter((k) => k.startsWith(`${section}.`) && !FIELDS.get(k).input);
    p.hidden = extras.length === 0;
    p.textContent = extras.length ? `Also set by the link: ${extras.map((k) => `${k.slice(section.length + 1)} = ${entries[k] ?? 'unset'}`).join(', ')}` : '';
  }
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

// Puts an engine error next to the input whose name is the error path; false when there is none.
export function showFieldError(form, error) {
  clearFieldErrors(form);
  const el = [...form.querySelectorAll('[data-path]')].find((e) => e.name === error.path);
  if (!el) return false;
  const id = `${el.id}-error`;
  el.closest('details')?.setAttribute('open', '');
  el.setAttribute('aria-invalid', 'true');
  el.setAttribute('aria-describedby', id);
  el.closest('.field').append(h('p', { id, class: 'field-error', role: 'alert', 'data-error-for': error.path }, error.message));
  return true;
}
