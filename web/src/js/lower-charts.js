// The pipeline schedule's Gantt chart and the roofline plot, the two largest charts and the last on the page: a
// file of their own, fetched when the time section nears the screen (app.js watchLowerCharts), not in the page's
// first download (about 4 KB gzip: page budget, docs/performance.md).
export { renderGantt } from './gantt.js';
export { renderRoofline } from './roofline.js';
