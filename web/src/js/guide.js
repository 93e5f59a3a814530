// Inputs that guide: the arrow keys of a plan's integer fields step to the next value the plan allows, and
// the menus mark the values the plan does not allow (disabled, with the engine's reason as their title).
// Which values are allowed is never decided here: the engine reads and validates each candidate exactly as
// it would evaluate it (engine/io/contract/choices.h), so a menu or stepper cannot disagree with the error it avoids.
import { FIELDS, pointer } from './fields.js';

// Integer fields whose valid values are sparse (divisors, multiples): the arrow keys skip to valid ones.
export const STEPPED = ['parallel.dp', 'parallel.tp', 'parallel.pp', 'parallel.vpp', 'parallel.cp', 'parallel.ulysses', 'parallel.ep', 'parallel.etp',
  'training.micro_batch', 'training.global_batch'];

// Menus whose options depend on the device, the framework or the plan. The blank "default" option is the engine's
// choice for the framework, always valid.
const MENUS = ['framework', 'parallel.zero', 'parallel.offload_optimizer', 'parallel.offload_params', 'parallel.schedule', 'training.attention',
  'implementation.compile'];
const candidates = (path) => FIELDS.get(path).options.map((o) => (FIELDS.get(path).type === 'int' ? Number(o) : o));

// Marks each menu option the engine refuses for the current plan. Returns quietly when the scenario cannot
// be read at all (the errors say why) or a newer request superseded this one.
let menuSeq = 0;
export async function updateMenus(form, engine, scenario) {
  const id = ++menuSeq;
  const request = Object.fromEntries(MENUS.map((p) => [pointer(p), candidates(p)]));
  let answer;
  try {
    answer = await engine.choices({ scenario, options: request });
  } catch {
    return;
  }
  if (id !== menuSeq || !answer.ok) return;
  for (const path of MENUS) {
    const select = form.querySelector(`[data-path="${path}"]`);
    for (const { value, valid, reason } of answer.options[pointer(path)] || []) {
      const option = [...(select?.options || [])].find((o) => o.value === String(value));
      if (!option) continue;
      // The chosen option stays selectable even when refused, so the menu can still show it (its error says why).
      option.disabled = !valid && !option.selected;
      option.title = valid ? '' : `Not allowed here: ${reason}`;
      option.dataset.allowed = String(valid);
    }
  }
}

// A device that runs only some frameworks (a TPU runs XLA programs only): when the current framework is refused
// at its own field, the first one the engine accepts there, else null. Which framework runs where is the engine's
// rule (engine/scenario/validate.cpp); a choice that only breaks another field is taken (its error then says how).
export async function acceptedFramework(engine, scenario, frameworks) {
  let answer;
  try {
    answer = await engine.choices({ scenario, options: { '/framework': frameworks } });
  } catch {
    return null;
  }
  const list = answer.ok ? answer.options['/framework'] : [];
  const ownField = (o) => o.valid || String(o.reason).startsWith('/');
  if (list.find((o) => o.value === scenario.framework && ownField(o))) return null;
  return list.find(ownField)?.value ?? null;
}

// The arrow keys and the − / + buttons of a stepped field ask the engine for the nearest valid value in that
// direction (`current(path)` gives the scenario and the value the field shows); `set(path, value)` applies it.
// Steps asked while one is on its way wait for it, so a held key walks through valid values only. The
// browser's own spin buttons (which count by one) are hidden on these fields (style.css .stepped).
export function wireSteppers(form, engine, current, set) {
  let queue = Promise.resolve();
  const step = (el, direction) => {
    const path = el.dataset.path;
    queue = queue.then(async () => {
      const { scenario, value } = current(path);
      if (!Number.isInteger(value)) return;
      let answer;
      try {
        answer = await engine.choices({ scenario, step: { path: pointer(path), from: value, direction } });
      } catch {
        return;
      }
      if (answer.ok && answer.value !== null) set(path, answer.value);
      // Nothing further that way (within the engine's search window): the field says so.
      el.dataset.stepEnd = answer.ok && answer.value === null ? (direction > 0 ? 'top' : 'bottom') : '';
    });
    return queue;
  };
  for (const path of STEPPED) {
    const el = form.querySelector(`input[data-path="${path}"]`);
    if (!el) continue;
    el.classList.add('stepped');
    const button = (direction, text, label) => {
      const b = document.createElement('button');
      Object.assign(b, { type: 'button', className: 'step', textContent: text, tabIndex: -1 });
      b.dataset.step = String(direction);
      b.setAttribute('aria-label', `${label} ${FIELDS.get(path).label}: next value the plan allows`);
      b.addEventListener('click', () => step(el, direction));
      return b;
    };
    const wrap = document.createElement('span');
    wrap.className = 'stepper';
    el.replaceWith(wrap);
    wrap.append(button(-1, '−', 'Decrease'), el, button(1, '+', 'Increase'));
  }
  form.addEventListener('keydown', (event) => {
    const el = event.target;
    if (!STEPPED.includes(el.dataset?.path) || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
    event.preventDefault();
    step(el, event.key === 'ArrowUp' ? 1 : -1);
  });
}
