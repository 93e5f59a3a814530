// Entry point. The engine (worker + wasm) starts before the page builds anything: its start-up is
// the longest part of the time to the first result, and app.js awaits it only when it needs the
// answer (the form is built meanwhile).
import { createEngine } from './engine-client.js';
import { start } from './app.js';

const engine = createEngine();
engine.catch(() => {}); // a failure is reported by app.js when it awaits the promise
start(engine);
