// When the work that follows an answer runs: in the task after the frame that shows it. The first answer's
// follow-up (building the form, drawing the sections below the first screen, asking the engine which values
// each menu may offer) waits until that answer is on screen: the browser rasterises and presents the frame on
// other threads, and on a machine of two cores the form's 50 to 120 ms and the worker's menu requests took
// the cores those threads needed (page budget: docs/performance.md). Element Timing says when the element marked
// elementtiming="result" (the summary's verdict, summary.js) was presented; browsers without it, and answers
// that paint no verdict (an input error), wait for the frame only.
const WAIT_AT_MOST_MS = 500; // a verdict that is never presented (a hidden tab) holds nothing back for long

let firstPaint = null;

// A promise of the first verdict's presentation (true), or of the browser not saying so (false): no Element
// Timing, or WAIT_AT_MOST_MS passed.
function firstVerdictPresented() {
  firstPaint ??= new Promise((resolve) => {
    if (!globalThis.PerformanceObserver?.supportedEntryTypes?.includes('element')) return resolve(false);
    const observer = new PerformanceObserver((list) => {
      if (!list.getEntries().some((entry) => entry.identifier === 'result')) return;
      observer.disconnect();
      resolve(true);
    });
    observer.observe({ type: 'element', buffered: true });
    setTimeout(() => {
      observer.disconnect();
      resolve(false);
    }, WAIT_AT_MOST_MS);
  });
  return firstPaint;
}

// Runs `work` in the task after the next frame; with `firstVerdict` (the page's first answer, a verdict), once
// that verdict is on screen.
export function afterPaint(work, { firstVerdict = false } = {}) {
  const frame = () => requestAnimationFrame(() => setTimeout(work));
  if (firstVerdict) firstVerdictPresented().then((presented) => (presented ? setTimeout(work) : frame()));
  else frame();
}
