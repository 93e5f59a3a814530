// The page in real Chromium against hostile input: config.json files with prototype keys and numbers beyond a
// double, names that would break Markdown, injected scripts (the Content-Security-Policy), oversized links.
// Screenshots: artifacts/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { DEFAULTS, cliReport, close, cspViolations, dist, expectMetric, link, open, root, useBrowser } from './harness.mjs';
import { expectStages } from './page-checks.mjs';

// Playwright's default viewport (1280×720), the size these tests were written at, unless one is given.
const env = useBrowser({ viewport: { width: 1280, height: 720 } });

// ---- Hostile links and files (issue 8) ------------------------------------------------------

const MISTRAL_CONFIG = {
  architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336,
  num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000,
  max_position_embeddings: 32768, hidden_act: 'silu', rms_norm_eps: 1e-5, tie_word_embeddings: false, rope_theta: 10000.0,
};
// Keys an object literal cannot hold as plain data, at the top level and nested (JSON text: an
// object literal would set the prototype instead).
const HOSTILE_KEYS = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf'];
const hostileConfig = JSON.stringify(MISTRAL_CONFIG).replace(/}$/, `,
  "__proto__": {"polluted": "yes", "num_hidden_layers": 1},
  "constructor": {"prototype": {"polluted": "yes"}},
  "hasOwnProperty": 1, "toString": "x", "valueOf": {"polluted": "yes"},
  "rope_scaling": {"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "type": "linear"},
  "quantization_config": {"hasOwnProperty": 1, "__proto__": null}}`);

// Object.prototype's own properties (name and value), to compare before and after an import.
const protoSnapshot = (page) => page.evaluate(() => {
  const own = Object.getOwnPropertyNames(Object.prototype);
  window.__protoValues ??= own.map((k) => Object.getOwnPropertyDescriptor(Object.prototype, k).value);
  return {
    names: own.join(','),
    same: own.every((k, i) => Object.getOwnPropertyDescriptor(Object.prototype, k).value === window.__protoValues[i]),
    polluted: [({}).polluted, ({}).num_hidden_layers, Object.getPrototypeOf(Object.prototype)].map(String).join(','),
  };
});

async function expectMistralImported(page, label) {
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000', null, { timeout: 5000 })
    .catch(async () => assert.fail(`${label}: the config was not imported (message: "${await page.textContent('#hf-import-message')}")`));
  assert.equal(await page.inputValue('#f-model-preset'), '', `${label}: a Custom model`);
  assert.equal(await page.inputValue('#f-model-layers'), '32', `${label}: __proto__.num_hidden_layers is data, not a default`);
  assert.equal(await page.inputValue('#f-model-kv_heads'), '8');
  const message = await page.textContent('#hf-import-message');
  for (const key of HOSTILE_KEYS) assert.ok(message.includes(key), `${label}: "${key}" listed as not understood: ${message}`);
  const mistral = cliReport({ ...DEFAULTS, model: { preset: 'mistral-7b' } });
  await expectMetric(page, 'parameters.total', mistral.parameters.total);
}

test('a config.json with __proto__, constructor and hasOwnProperty keys imports as data, pasted or dropped', async () => {
  const page = await open(env);
  const before = await protoSnapshot(page);
  await page.fill('#hf-config', hostileConfig);
  await page.click('#hf-import');
  await expectMistralImported(page, 'pasted');
  assert.deepEqual(await protoSnapshot(page), before, 'Object.prototype unchanged');

  // Dropped as a file, onto a page back at a preset.
  await page.selectOption('#f-model-preset', 'llama-3.1-8b');
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '128256');
  await page.fill('#hf-config', '');
  const drop = await page.evaluateHandle((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], 'config.json', { type: 'application/json' }));
    return data;
  }, hostileConfig);
  await page.dispatchEvent('#hf-config', 'drop', { dataTransfer: drop });
  await expectMistralImported(page, 'dropped');
  assert.deepEqual(await protoSnapshot(page), before, 'Object.prototype unchanged');

  // Values whose own toString/valueOf are not functions (a naive String(value) throws): not understood.
  const odd = { ...MISTRAL_CONFIG };
  delete odd.hidden_act;
  const oddText = JSON.stringify(odd).replace(/}$/, ', "hidden_act": {"toString": 1, "valueOf": 1, "__proto__": {"x": 1}}}')
    .replace('"model_type":"mistral"', '"model_type":{"toString":1,"valueOf":1}');
  await page.selectOption('#f-model-preset', 'llama-3.1-8b');
  await page.fill('#hf-config', oddText);
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000', null, { timeout: 5000 });
  assert.match(await page.textContent('#hf-import-message'), /Not understood: .*hidden_act/);
  assert.deepEqual(await protoSnapshot(page), before, 'Object.prototype unchanged');
  await close(page);
});

test('a number beyond double range in a config.json is an error naming the key, never a silent default', async () => {
  const page = await open(env);
  // JSON.parse reads 1e400 as Infinity, which JSON.stringify would send to the engine as null (its default: MHA).
  const text = JSON.stringify({ ...MISTRAL_CONFIG, num_key_value_heads: 12345, hidden_size: 67890 })
    .replace('12345', '1e400').replace('67890', '-1e999');
  await page.fill('#hf-config', text);
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#hf-import-message')?.textContent.includes('finite'), null, { timeout: 5000 })
    .catch(() => {});
  const message = await page.textContent('#hf-import-message');
  assert.match(message, /num_key_value_heads: 1e400 is not a finite number/, message);
  assert.match(message, /hidden_size: -1e999 is not a finite number/, message);
  // Nothing applied: the model is still the preset (GQA with 8 KV heads), not a Custom MHA model.
  assert.equal(await page.inputValue('#f-model-preset'), 'llama-3.1-8b');
  assert.equal(await page.inputValue('#f-model-kv_heads'), '8');
  assert.equal(await page.inputValue('#f-model-vocab'), '128256');
  await expectStages(page, cliReport(DEFAULTS));
  await close(page);

  // The same in a #scenario= link: the error names the field, and the rest of the scenario loads without it.
  const linked = await open(env, '#scenario=' + encodeURIComponent('{"model": {"preset": "llama-3.1-8b", "kv_heads": 1e400}}'));
  assert.match(await linked.textContent('#link-error'), /model\.kv_heads: 1e400 is not a finite number/);
  await expectStages(linked, cliReport({ model: { preset: 'llama-3.1-8b' } }));
  await close(linked);
});

test('a config.json the engine cannot represent is refused with the reason at its key, and the model is kept', async () => {
  const page = await open(env);
  // T5 is an encoder-decoder, which the engine does not build: refused at its model_type (engine/io/import/hf_config.cpp),
  // never imported as something else.
  const t5 = { architectures: ['T5ForConditionalGeneration'], model_type: 't5', d_model: 512, num_layers: 6, num_heads: 8, vocab_size: 32128 };
  await page.fill('#hf-config', JSON.stringify(t5));
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#hf-import-message')?.textContent.includes('Nothing imported'), null, { timeout: 5000 })
    .catch(() => {});
  const message = await page.textContent('#hf-import-message');
  assert.match(message, /t5: an encoder-decoder model/, message);
  assert.equal(await page.inputValue('#f-model-preset'), 'llama-3.1-8b');
  assert.equal(await page.inputValue('#f-model-vocab'), '128256');
  // Mixtral imports as the MoE model it is: 8 experts, 2 per token, the CLI's memory.
  const mixtral = { ...MISTRAL_CONFIG, architectures: ['MixtralForCausalLM'], model_type: 'mixtral', num_local_experts: 8, num_experts_per_tok: 2 };
  await page.fill('#hf-config', JSON.stringify(mixtral));
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#f-model-experts')?.value === '8', null, { timeout: 5000 });
  assert.equal(await page.inputValue('#f-model-experts_per_token'), '2');
  await close(page);
});

// Markdown text back to what it shows: backslash escapes and the entities the page writes.
const unMarkdown = (text) => text.replace(/\\(.)/g, '$1').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
// Cell separators of a table line: the pipes not escaped by a backslash.
const pipes = (line) => (line.replace(/\\./g, '').match(/\|/g) || []).length;

test('a device name from a shared link is escaped in the Markdown: one line, no table break, no HTML', async () => {
  const name = 'x|y<script>alert(1)</script>\n| a | b |\r\n*b* _i_ `c` [l](javascript:alert(1)) ~s~ \\ &amp; <img src=x onerror=alert(2)>';
  for (const prefix of ['', '?embed=1']) {
    const page = await open(env, `${prefix}#v=1&hardware.name=${encodeURIComponent(name)}`);
    assert.ok((await page.textContent('#headline .plan')).includes('x|y<script>alert(1)</script>'), 'the page shows the name as text');
    assert.equal(await page.locator('#headline script, #headline img').count(), 0);
    if (prefix) {
      // The embed has no Share block, so no Markdown is written there (app.js writeMarkdown).
      assert.equal(await page.inputValue('#markdown-output'), '');
      await close(page);
      continue;
    }
    await page.click('#copy-markdown');
    await page.waitForFunction(() => document.querySelector('#markdown-output')?.value.includes('| Stage'));
    const md = await page.inputValue('#markdown-output');
    assert.doesNotMatch(md, /<\/?script/i, md);
    assert.doesNotMatch(md, /<[a-z/!?]/i, 'no raw HTML');
    const lines = md.split('\n');
    assert.ok(lines[0].startsWith('**shardcalc**: '), lines[0]);
    assert.equal(pipes(lines[0]), 0, `the name breaks no table: ${lines[0]}`);
    assert.ok(unMarkdown(lines[0]).includes(name.replace(/\r?\n/g, ' ')), `the whole name, on one line: ${lines[0]}`);
    assert.ok(!/[^\\][*_`[\]~]/.test(lines[0].replace(/\*\*shardcalc\*\*/, '').replace(/\\\\/g, '')), 'no emphasis, code or link syntax');
    // Each table keeps one cell per column.
    let width = 0;
    for (const line of lines) {
      if (!line.startsWith('|')) width = 0;
      else if (!width) width = pipes(line);
      else assert.equal(pipes(line), width, `a table row with ${width - 1} cells: ${line}`);
    }
    assert.ok(!lines.some((l) => l.startsWith('| a |')), 'no injected row');
    await close(page);
  }
});

// The policy of a built page, as {directive: [sources]}.
async function builtPolicy(file) {
  const html = await readFile(join(dist, file), 'utf8');
  const content = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
  assert.ok(content, `${file} declares a Content-Security-Policy`);
  return { html, policy: Object.fromEntries(content.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([k, ...v]) => [k, v])) };
}

// Injects an inline script and an inline event handler; both must be blocked and reported.
async function expectInjectionBlocked(page) {
  const ran = await page.evaluate(async () => {
    const script = document.createElement('script');
    script.textContent = 'window.__injectedScript = true;';
    document.body.append(script);
    const div = document.createElement('div');
    div.setAttribute('onclick', 'window.__injectedHandler = true;');
    document.body.append(div);
    div.click();
    await new Promise((r) => setTimeout(r, 100));
    return { script: window.__injectedScript ?? false, handler: window.__injectedHandler ?? false };
  });
  assert.deepEqual(ran, { script: false, handler: false }, 'injected inline script and handler blocked');
  const violations = await cspViolations(page);
  // Reported once per policy that refuses them (the served page has the header and the meta).
  assert.ok(violations.some((v) => v.startsWith('script-src-elem ')) && violations.some((v) => v.startsWith('script-src-attr '))
    && violations.every((v) => /^script-src-(elem|attr) blocked inline/.test(v)), violations.join('; '));
  // Those two were expected: the browser logs each one as a console error.
  page.problems = page.problems.filter((p) => !/Content Security Policy/.test(p));
  await page.evaluate(() => { window.__cspViolations.length = 0; });
}

test('a strict Content-Security-Policy: no violation in normal use (page, embed view, single file); injected scripts are blocked', async () => {
  for (const file of ['index.html', 'shardcalc-standalone.html']) {
    const { html, policy } = await builtPolicy(file);
    for (const [directive, sources] of Object.entries({ 'default-src': ["'none'"], 'object-src': ["'none'"], 'base-uri': ["'none'"], 'form-action': ["'none'"], 'connect-src': ["'self'"] }))
      assert.deepEqual(policy[directive], sources, `${file}: ${directive}`);
    for (const directive of ['script-src', 'style-src', 'worker-src', 'img-src'])
      for (const source of policy[directive] || [])
        assert.ok(/^'(self|none|wasm-unsafe-eval|sha256-[A-Za-z0-9+/=]+)'$|^(blob|data):$/.test(source), `${file}: ${directive} ${source}`);
    assert.ok(policy['script-src'].includes("'wasm-unsafe-eval'"), `${file}: WebAssembly may compile`);
    // Inline scripts only where the policy lists their hash.
    for (const [, attrs, body] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
      if (/\ssrc=/.test(attrs)) continue;
      const hash = `'sha256-${createHash('sha256').update(body).digest('base64')}'`;
      assert.ok(policy['script-src'].includes(hash), `${file}: an inline script without its hash in script-src`);
    }
  }
  // The hosted page under normal use.
  const page = await open(env);
  await page.selectOption('#f-model-preset', 'llama-3.1-70b');
  await page.fill('#f-parallel-tp', '8');
  await page.fill('#f-parallel-pp', '4');
  await page.selectOption('#unit', 'GB');
  await page.click('#copy-link');
  await page.click('#copy-markdown');
  await page.fill('#hf-config', JSON.stringify(MISTRAL_CONFIG));
  await page.click('#hf-import');
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000');
  await page.waitForSelector('#status[data-state="ready"]');
  await page.locator('#module-table').scrollIntoViewIfNeeded();
  assert.deepEqual(await cspViolations(page), []);
  await expectInjectionBlocked(page);
  await close(page);
  // The embed view.
  const embed = await open(env, `?embed=1${link({ model: { preset: 'llama-2-13b' }, parallel: { tp: 2, pp: 2 } })}`);
  await expectInjectionBlocked(embed);
  await close(embed);
  // The single file, from file://.
  const single = await open(env, '', { base: pathToFileURL(join(dist, 'shardcalc-standalone.html')).href });
  await single.fill('#f-parallel-tp', '2');
  await expectStages(single, cliReport({ ...structuredClone(DEFAULTS), parallel: { ...DEFAULTS.parallel, tp: 2 } }));
  await single.fill('#hf-config', JSON.stringify(MISTRAL_CONFIG));
  await single.click('#hf-import');
  await single.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000');
  await expectInjectionBlocked(single);
  await close(single);
});

test('scripts/serve.py (scripts/run.sh) sends each page\'s policy as a header, and the site\'s with the worker', async () => {
  const child = spawn('python3', [join(root, 'scripts', 'serve.py'), '0', dist], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const base = await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => { const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(String(d)); if (m) resolve(m[0]); });
      child.on('exit', (code) => reject(new Error(`serve.py exited with ${code}`)));
    });
    const policy = async (file) => /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(await readFile(join(dist, file), 'utf8'))[1];
    for (const [path, file] of [['', 'index.html'], ['?embed=1', 'index.html'], ['js/engine-worker.js', 'index.html'],
      ['engine/shardcalc.mjs', 'index.html'], ['shardcalc-standalone.html', 'shardcalc-standalone.html']]) {
      const res = await fetch(base + path);
      assert.equal(res.status, 200, path);
      await res.arrayBuffer();
      assert.equal(res.headers.get('content-security-policy'), await policy(file), `${path || '/'}: the policy header`);
    }
  } finally {
    child.kill();
  }
});

test('a 2 MB link fragment is refused with a message, the defaults load and the page stays interactive', async () => {
  const fill = 2_000_000; // 2 MB: just under Chromium's URL limit (2 MiB)
  const page = await open(env, `#v=1&hardware.name=${'a'.repeat(fill)}`);
  await page.waitForFunction(() => {
    const banner = document.querySelector('#link-error');
    return !banner.hidden && /too long/.test(banner.textContent);
  }, null, { timeout: 10000 }).catch(async () => assert.fail(`no message; the banner says "${(await page.textContent('#link-error')).slice(0, 200)}"`));
  const message = await page.textContent('#link-error');
  assert.ok(message.length < 300, `a short message: ${message.slice(0, 300)}`);
  assert.match(message, /65,536/);
  await expectStages(page, cliReport(DEFAULTS));
  // Interactive: an edit is handled and its result shown (how fast is the page budget's business, scripts/budget.mjs).
  await page.fill('#f-parallel-tp', '2');
  await page.waitForFunction(() => document.querySelector('[data-metric="scenario.parallel.tp"]')?.dataset.value === '2', null, { timeout: 10000 });
  await close(page);

  // The same link typed into an open page: the message, and the defaults still shown.
  const open2 = await open(env);
  await open2.evaluate((n) => { window.location.hash = `#scenario=${encodeURIComponent(JSON.stringify({ name: 'a'.repeat(n) }))}`; }, fill);
  await open2.waitForFunction(() => /too long/.test(document.querySelector('#link-error').textContent), null, { timeout: 10000 });
  await expectStages(open2, cliReport(DEFAULTS));
  await close(open2);

  // Below the limit a long link still loads.
  const long = await open(env, `#v=1&hardware.name=${'b'.repeat(60000)}`);
  assert.equal(await long.isVisible('#link-error'), false);
  assert.ok((await long.textContent('#headline .plan')).includes('b'.repeat(60000)));
  await close(long);
});

test('the link error banner can be dismissed, and a successful edit clears it', async () => {
  const page = await open(env, '#v=1&parallel.tp=eight');
  assert.equal(await page.isVisible('#link-error'), true);
  await page.click('#link-error-dismiss', { timeout: 3000 });
  assert.equal(await page.isVisible('#link-error'), false);
  await close(page);

  const edited = await open(env, '#v=1&parallel.tp=eight');
  await edited.fill('#f-parallel-tp', '3'); // rejected by the engine: the link message stays
  await edited.waitForSelector('#status[data-state="error"]');
  assert.equal(await edited.isVisible('#link-error'), true);
  await edited.fill('#f-parallel-tp', '2');
  await edited.waitForSelector('#status[data-state="ready"]');
  await edited.waitForFunction(() => document.querySelector('#link-error').hidden, null, { timeout: 3000 });
  await close(edited);
});

// The search panel's code fills its fields from the form when it arrives: a test types only after that, or the two
// writes race (a typed "64" and the panel's "64" once made "6464").
