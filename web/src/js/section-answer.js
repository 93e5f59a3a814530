// What the page's lazily built sections that ask the whole engine share ("Serve this model", "Post-train with RL"):
// asking for a section's answer so that only the newest question is drawn, and an answer's errors in words.

const latest = new WeakMap();

// Asks `ask()` for the answer of the section `box` (its <details>), which says data-state="loading" meanwhile; resolves
// to the answer, an engine failure as the error value, or to null when a newer question was asked of the same section.
export async function askFor(box, ask) {
  const id = (latest.get(box) ?? 0) + 1;
  latest.set(box, id);
  box.dataset.state = 'loading';
  let answer;
  try {
    answer = await ask();
  } catch (err) {
    answer = { ok: false, error: { path: '', message: `engine failure: ${err.message}` } };
  }
  return latest.get(box) === id ? answer : null;
}

// An answer's errors in words, each with its field's path.
export const reasons = (answer) => (answer.errors ?? [answer.error]).map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ');
