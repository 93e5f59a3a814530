// Form values people can read: a number input holding a large value gets its value in words beside
// it ("= 15 T" under 15000000000000), and a preset select whose name is cut off by the control's
// width shows the full name under it. Display only: the inputs keep the exact value.
import { h } from './dom.js';
import { large } from './format.js';

// Values from a million up read better in words; below that the input's digits are short enough.
const HINT_FROM = 1e6;
// Room a select keeps for its arrow, beyond its padding (Chromium about 20 px; a little spare).
const ARROW = 24;

let canvas;
// Whether the select's chosen text is wider than the room it has (it is then cut off).
function cutOff(select) {
  const text = select.selectedOptions[0]?.textContent || '';
  const style = getComputedStyle(select);
  canvas ??= document.createElement('canvas').getContext('2d');
  canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - ARROW;
  return room > 0 && canvas.measureText(text).width > room;
}

// Notes find their control by its path: other code may wrap a control (guide.js's steppers).
const noteFor = (el, kind) => el.closest('.field')?.querySelector(`[data-${kind}-for="${el.dataset.path}"]`);

function showName(select) {
  const note = noteFor(select, 'name');
  if (!note) return;
  note.textContent = select.selectedOptions[0]?.textContent || '';
  note.hidden = !cutOff(select);
}

// Adds the (empty) hint and name elements after their controls; once, after the form is built.
export function addHints(form) {
  for (const el of form.querySelectorAll('input[type="number"]'))
    el.after(h('small', { class: 'num-hint', 'data-hint-for': el.dataset.path, hidden: true }));
  const resized = new ResizeObserver((entries) => entries.forEach((e) => showName(e.target)));
  for (const el of form.querySelectorAll('select[data-path$=".preset"]')) {
    el.after(h('small', { class: 'preset-name', 'data-name-for': el.dataset.path, hidden: true }));
    resized.observe(el);
  }
}

// Brings every hint and name up to date with what the controls show (after each sync of the form).
export function updateHints(form) {
  for (const el of form.querySelectorAll('input[type="number"][data-path]')) {
    const note = noteFor(el, 'hint');
    if (!note) continue;
    const v = el.value === '' ? NaN : Number(el.value);
    const show = Number.isFinite(v) && Math.abs(v) >= HINT_FROM;
    note.textContent = show ? `= ${large(v)}` : '';
    note.hidden = !show;
  }
  for (const el of form.querySelectorAll('select[data-path$=".preset"]')) showName(el);
}
