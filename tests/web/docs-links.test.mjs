// The form's help and the rendered docs agree (node:test, no browser): every input of the form has
// help and a `doc` anchor; every anchor is an id of the page web/build.mjs rendered from docs/*.md;
// every link between the docs pages resolves; the pages obey the site's policy (no script, one
// stylesheet file, no inline style). Needs web/dist (node web/build.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { FIELDS, SECTIONS, loadHelp } from '../../web/src/js/fields.js';

await loadHelp(); // the catalogue's help and doc anchors (a chunk of their own on the page)
import { HELP } from '../../web/src/js/field-help.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const docsDir = join(root, 'web', 'dist', 'docs');

const pages = new Map(); // page file name -> its HTML
for (const name of (await readdir(docsDir)).filter((f) => f.endsWith('.html'))) pages.set(name, await readFile(join(docsDir, name), 'utf8'));
const idsOf = (html) => new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));

// The inputs the form builds: the framework select and every field of SECTIONS.
const inputs = ['framework', ...SECTIONS.flatMap((s) => s.fields.map((f) => `${s.id}.${f.key}`))];

test('the docs pages are rendered: the models, scenario and search at least', () => {
  for (const page of ['memory.html', 'time.html', 'devices.html', 'validation.html', 'scenario.html', 'search.html']) assert.ok(pages.has(page), `web/dist/docs/${page} is missing`);
});

test('every input of the form has help text and a docs anchor', () => {
  assert.ok(inputs.length > 60, `${inputs.length} inputs`);
  for (const path of inputs) {
    const spec = FIELDS.get(path);
    assert.ok(spec?.help, `${path}: no help`);
    assert.ok(spec.help.length >= 30 && spec.help.length <= 320, `${path}: help of ${spec.help.length} characters (one or two sentences)`);
    assert.match(spec.doc ?? '', /^[\w-]+\.md#[\w-]+$/, `${path}: doc must be 'page.md#anchor'`);
  }
  // No help for a field the form does not have (a renamed or removed field).
  for (const path of Object.keys(HELP)) assert.ok(inputs.includes(path), `field-help.js: ${path} is not an input of the form`);
});

test('every doc anchor of the catalogue is a heading id of the rendered page', () => {
  for (const path of inputs) {
    const [file, anchor] = FIELDS.get(path).doc.split('#');
    const page = file.replace(/\.md$/, '.html');
    assert.ok(pages.has(page), `${path}: ${file} is not rendered to web/dist/docs/${page}`);
    assert.ok(idsOf(pages.get(page)).has(anchor), `${path}: docs/${page} has no id "${anchor}"`);
  }
});

test('headings have GitHub-style ids', () => {
  const memory = idsOf(pages.get('memory.html'));
  for (const id of ['parameters', 'activations-saved-for-backward', 'framework-accurate-activations-the-implementation-profile',
    'the-rest-named-separately-other_detail'])
    assert.ok(memory.has(id), `memory.html: ${id}`);
  assert.ok(idsOf(pages.get('time.html')).has('communication-alpha-beta-per-collective'), 'time.html: communication-alpha-beta-per-collective');
  const scenario = idsOf(pages.get('scenario.html'));
  for (const id of ['21-model', '24-hardware', '34-framework-specific-validate_framework-checked-before-hardware']) assert.ok(scenario.has(id), `scenario.html: ${id}`);
});

test('every link between the docs pages resolves, fragment included', () => {
  for (const [name, html] of pages) {
    for (const [, href] of html.matchAll(/<a [^>]*href="([^"]+)"/g)) {
      if (/^[a-z]+:/.test(href) || href === '../index.html') continue; // another site, or the calculator
      assert.doesNotMatch(href, /\.md(#|$)/, `${name}: link to Markdown ${href}`);
      const [file, anchor] = href.split('#');
      const target = file || name;
      assert.ok(pages.has(target), `${name}: link to ${href}: no such page`);
      if (anchor) assert.ok(idsOf(pages.get(target)).has(anchor), `${name}: link to ${href}: no such id`);
    }
  }
});

test('the docs pages obey the site policy: a CSP without script, one stylesheet file, no inline style', () => {
  for (const [name, html] of pages) {
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
    assert.ok(csp, `${name}: no Content-Security-Policy`);
    assert.match(csp, /default-src 'none'/, name);
    assert.doesNotMatch(csp, /script-src|unsafe-inline/, name);
    assert.doesNotMatch(html, /<script|<style|\sstyle="|\son[a-z]+="/i, `${name}: script, inline style or handler`);
    assert.match(html, /<link rel="stylesheet" href="docs\.css">/, name);
  }
});
