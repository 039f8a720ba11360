// A small SVG line chart drawn here (no library): one line per series, each with its own dash pattern too, so
// that the lines differ without colour. The x axis is time, labelled at round local times; the y axis counts or
// milliseconds.
const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 180;
const PAD = { left: 50, right: 10, top: 10, bottom: 22 };
const MINUTE = 60000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Time ticks: the shortest of these that gives at most 9 labels (1 h: every 10 min; 24 h: 3 h; 7 d: a day).
const TICK_EVERY = [MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR,
  12 * HOUR, DAY, 7 * DAY];
const CLOCK = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const WEEKDAY = new Intl.DateTimeFormat(undefined, { weekday: 'short' });
const MOMENT = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit',
  hourCycle: 'h23' });

function svg(tag, attributes = {}, text) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    element.setAttribute(name, String(value));
  }
  if (text !== undefined) {
    element.textContent = text;
  }
  return element;
}

/** A short line drawn as the series `css` is, for a legend: the same colour and dash pattern as in the chart. */
export function swatch(css) {
  const key = svg('svg', { class: 'key', viewBox: '0 0 28 8', width: 28, height: 8, 'aria-hidden': 'true' });
  key.append(svg('line', { x1: 0, x2: 28, y1: 4, y2: 4, class: `series ${css}` }));
  return key;
}

/** A value of the unit as people read it: a count as it is, milliseconds as "850 ms", "1.5 s" or "2.5 min". */
export function formatValue(value, unit) {
  if (unit !== 'ms') {
    return String(value);
  }
  if (value < 1000) {
    return `${Math.round(value)} ms`;
  }
  const [amount, suffix] = value < MINUTE ? [value / 1000, 's'] : value < HOUR ? [value / MINUTE, 'min'] : [value / HOUR, 'h'];
  return `${Number(amount.toFixed(amount < 10 ? 1 : 0))} ${suffix}`;
}

/** The smallest of 1, 2, 5 times a power of ten not below `value` (and at least 1). */
function roundUp(value) {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, value)));
  return [1, 2, 5, 10].map((times) => times * power).find((round) => round >= value);
}

/** An instant's label: the day at local midnight, else the local time of day. */
function timeLabel(at) {
  const date = new Date(at);
  return date.getHours() === 0 && date.getMinutes() === 0 ? `${WEEKDAY.format(date)} ${date.getDate()}` : CLOCK.format(date);
}

/** The instants in [from, to] at round local times, `every` apart. */
function timeTicks(from, to) {
  const every = TICK_EVERY.find((ms) => (to - from) / ms <= 9) ?? TICK_EVERY[TICK_EVERY.length - 1];
  const offset = new Date(from).getTimezoneOffset() * MINUTE; // local = UTC - offset
  const ticks = [];
  for (let at = Math.ceil((from - offset) / every) * every + offset; at <= to; at += every) {
    ticks.push(at);
  }
  return ticks;
}

/** The runs of consecutive points that have a value: a gap in the data is a gap in the line. */
function segments(points, name) {
  const runs = [];
  let run = [];
  for (const point of points) {
    if (typeof point[name] === 'number') {
      run.push(point);
    } else if (run.length) {
      runs.push(run);
      run = [];
    }
  }
  return run.length ? [...runs, run] : runs;
}

/**
 * points: [{at (ms since the epoch), <series name>: number or absent}], oldest first; series: [{name, label, css}];
 * from, to: the x axis in ms since the epoch; unit: 'count' or 'ms'; label: the chart's accessible name.
 * Each point with a value other than 0 (or alone between gaps) gets a dot, with data-value and a title.
 */
export function lineChart({ points, series, from, to, unit = 'count', label }) {
  const chart = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': label, class: 'chart' });
  const values = points.flatMap((point) => series.map((line) => point[line.name])).filter((v) => typeof v === 'number');
  const max = roundUp(Math.max(0, ...values));
  const span = Math.max(1, to - from);
  const x = (at) => PAD.left + ((at - from) / span) * (WIDTH - PAD.left - PAD.right);
  const y = (value) => HEIGHT - PAD.bottom - (value / max) * (HEIGHT - PAD.top - PAD.bottom);

  for (const value of [0, max / 2, max].filter((v) => unit === 'ms' || Number.isInteger(v))) {
    chart.append(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value), class: 'gridline' }));
    chart.append(svg('text', { x: PAD.left - 4, y: y(value) + 4, 'text-anchor': 'end', class: 'tick' },
      formatValue(value, unit)));
  }
  for (const at of timeTicks(from, to)) {
    const anchor = x(at) < PAD.left + 20 ? 'start' : x(at) > WIDTH - PAD.right - 20 ? 'end' : 'middle';
    chart.append(svg('line', { x1: x(at), x2: x(at), y1: HEIGHT - PAD.bottom, y2: HEIGHT - PAD.bottom + 4, class: 'gridline' }));
    chart.append(svg('text', { x: x(at), y: HEIGHT - 6, 'text-anchor': anchor, class: 'tick', 'data-at': new Date(at).toISOString() },
      timeLabel(at)));
  }
  const radius = points.length > 100 ? 1.75 : 2.5;
  for (const line of series) {
    for (const run of segments(points.filter((point) => point.at >= from && point.at <= to), line.name)) {
      const coordinates = run.map((point) => `${x(point.at).toFixed(1)},${y(point[line.name]).toFixed(1)}`);
      chart.append(svg('polyline', { points: coordinates.join(' '), class: `series ${line.css}`, 'data-series': line.name }));
      // A dot where something happened, and for a point alone: a line of one point would not show.
      run.forEach((point, i) => {
        if (point[line.name] !== 0 || run.length === 1) {
          const [cx, cy] = coordinates[i].split(',');
          const dot = svg('circle', { cx, cy, r: radius, class: `dot ${line.css}`, 'data-series': line.name,
            'data-value': point[line.name], 'data-at': new Date(point.at).toISOString() });
          dot.append(svg('title', {}, `${MOMENT.format(new Date(point.at))}: ${line.label} ${formatValue(point[line.name], unit)}`));
          chart.append(dot);
        }
      });
    }
  }
  return chart;
}
