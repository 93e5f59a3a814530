// "Find a plan": the engine's plan search, run in the worker. The panel's code (search-results.js: settings
// that follow the form, the run with progress and cancel, the reasons, the ranked table with each plan's launch
// lines, the Pareto chart; the Share section's "Launch this plan") is a chunk fetched when the panel first comes
// near the screen, by the first search, by a link's search (search=) or by opening "Launch this plan", never with
// the page's first download (page budget: docs/performance.md). Until then this notes which panel fields the reader set (the
// chunk leaves those as they are; an emptied one follows the form again).
import { $ } from './dom.js';

export function wireSearch(host) {
  const typed = new Set();
  let link = {};
  let panel = null;
  const open = () => (panel ??= import('./search-results.js').then((m) => m.wirePanel(host, typed, link)));
  const run = () => open().then((p) => p.run());
  const section = $('#search-section');
  section.addEventListener('input', ({ target: t }) => (t.value === '' ? typed.delete(t.id) : typed.add(t.id)));
  new IntersectionObserver((seen, watch) => {
    if (!seen.some((e) => e.isIntersecting)) return;
    watch.disconnect();
    open();
  }, { rootMargin: '300px' }).observe(section);
  $('#s-run').addEventListener('click', run);
  $('#launch-plan').addEventListener('toggle', open, { once: true });
  return {
    show(settings) {
      link = settings;
    },
    // A link's search is shown, never started: a search can take seconds and much memory, and a link may come
    // from anyone. The reader starts it.
    offer() {
      open().then(() => {
        $('#s-status').textContent = 'This link carries a plan search: its settings are above. Press Search to run it.';
      });
    },
    run,
  };
}
