// Sharing: the page URL with the state fragment, an iframe snippet for the embed view, and the
// results as Markdown. Copying falls back to selecting the text when the clipboard is refused.
import { h } from './dom.js';
import { bytes, count, duration, fixed, percent } from './format.js';
import { planNodes, stageColumns } from './render.js';

export function pageUrl(fragment, embed) {
  const url = new URL(window.location.href);
  if (embed) url.searchParams.set('embed', '1');
  else url.searchParams.delete('embed');
  url.hash = fragment;
  return url.href;
}

export const iframeSnippet = (fragment) =>
  `<iframe src="${pageUrl(fragment, true).replaceAll('"', '%22')}" title="shardcalc memory estimate" width="100%" height="560" style="border:0"></iframe>`;

const row = (cells) => `| ${cells.join(' | ')} |`;

export function markdown(report, unit, presets) {
  const m = report.memory;
  const cols = stageColumns(report);
  const plan = h('span', {}, planNodes(report, presets)).textContent;
  const lines = [
    `**shardcalc**: ${plan}`,
    '',
    `Per-device peak **${bytes(m.per_device.total, unit)} ${unit}** of ${bytes(m.capacity, unit)} ${unit}: ` +
      `${m.fits ? 'fits' : 'out of memory'}, headroom ${bytes(m.headroom, unit)} ${unit}; parameters ${count(report.parameters.total)}.`,
    '',
    `Step time **${duration(report.time?.step_seconds)}**, ${fixed(report.throughput?.tokens_per_second, 0)} tokens/s, ` +
      `MFU ${percent(report.time?.mfu)} (HFU ${percent(report.time?.hfu)}).`,
    '',
    row(['Stage', 'Layers', 'In-flight', ...cols.map(([label]) => `${label} (${unit})`)]),
    row(['---:', '---:', '---:', ...cols.map(() => '---:')]),
    ...m.stages.map((s) => row([count(s.stage), count(s.layers), (s.inflight_microbatches || []).map(count).join('/'),
      ...cols.map(([, f]) => bytes(f.split('.').reduce((o, k) => o?.[k], s), unit))])),
  ];
  return `${lines.join('\n')}\n`;
}

// Writes `text` into the readonly `field`, then tries the clipboard; `note` says what happened.
export async function copyText(text, field, note) {
  field.value = text;
  try {
    await navigator.clipboard.writeText(text);
    note.textContent = 'Copied.';
  } catch {
    field.focus();
    field.select();
    note.textContent = 'Clipboard unavailable: the text is selected, press Ctrl+C.';
  }
}
