// A small SVG line chart drawn here (no library): one line per series, each with its own dash pattern too, so
// that the lines differ without colour.
const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 180;
const PAD = { left: 36, right: 8, top: 10, bottom: 22 };

function svg(tag, attributes = {}) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    element.setAttribute(name, String(value));
  }
  return element;
}

/**
 * points: [{at (ms since the epoch), <series name>: number, ...}], oldest first; series: [{name, label, css}];
 * span: the milliseconds the x axis covers, ending at the newest point.
 */
export function lineChart(points, series, span, label) {
  const chart = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': label, class: 'chart' });
  const end = points.length ? points[points.length - 1].at : Date.now();
  const start = end - span;
  const max = Math.max(1, ...points.flatMap((point) => series.map((line) => point[line.name])));
  const x = (at) => PAD.left + ((at - start) / span) * (WIDTH - PAD.left - PAD.right);
  const y = (value) => HEIGHT - PAD.bottom - (value / max) * (HEIGHT - PAD.top - PAD.bottom);

  for (const value of [0, max]) {
    chart.append(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value), class: 'gridline' }));
    const tick = svg('text', { x: PAD.left - 4, y: y(value) + 4, 'text-anchor': 'end', class: 'tick' });
    tick.textContent = String(value);
    chart.append(tick);
  }
  for (const [at, text, anchor] of [[start, span < 60000 ? `−${Math.round(span / 1000)} s` : `−${Math.round(span / 60000)} min`, 'start'], [end, 'now', 'end']]) {
    const tick = svg('text', { x: x(at), y: HEIGHT - 6, 'text-anchor': anchor, class: 'tick' });
    tick.textContent = text;
    chart.append(tick);
  }
  for (const line of series) {
    const coordinates = points.filter((point) => point.at >= start)
      .map((point) => `${x(point.at).toFixed(1)},${y(point[line.name]).toFixed(1)}`);
    if (coordinates.length) {
      chart.append(svg('polyline', { points: coordinates.join(' '), class: `series ${line.css}`,
        'data-series': line.name }));
    }
    // A dot per interval too: a line of one point would not show.
    for (const coordinate of coordinates) {
      const [cx, cy] = coordinate.split(',');
      chart.append(svg('circle', { cx, cy, r: 2.5, class: `dot ${line.css}`, 'data-series': line.name }));
    }
  }
  return chart;
}
