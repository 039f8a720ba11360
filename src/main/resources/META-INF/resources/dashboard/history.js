// Charts of what the service keeps of ended tasks (GET /api/v1/stats/history): throughput, failures, wait and run time
// over the last 1 h, 24 h or 7 d, of every type or one. The range is kept in the address (…?range=24h), so a reload
// shows the same charts, and in the tab's session storage, so the next page starts with it. Shown by the overview and
// a type's page.
import { ApiError, get, query, session } from './api.js';
import { fill, h, message, refreshing } from './dom.js';
import { formatValue, lineChart, swatch } from './chart.js';

const REFRESH_MS = 30000;
export const RANGES = [
  { name: '1h', label: '1 h', title: 'last hour', ms: 3600000, step: '1m', per: 'minute' },
  { name: '24h', label: '24 h', title: 'last 24 hours', ms: 86400000, step: '15m', per: '15 minutes' },
  { name: '7d', label: '7 d', title: 'last 7 days', ms: 7 * 86400000, step: '1h', per: 'hour' },
];

const line = (name, label = name) => ({ name, label, css: name });
const COUNTS = { unit: 'count', value: (point, name) => point[name] ?? 0 };
const TIMES = (field) => ({ unit: 'ms', value: (point, name) => point[field]?.[name] });
const CHARTS = [
  { id: 'throughput', title: 'Throughput', of: 'tasks started and succeeded', ...COUNTS,
    series: [line('started'), line('succeeded')] },
  { id: 'failures', title: 'Failures', of: 'attempts failed (to be retried), tasks dead and cancelled', ...COUNTS,
    series: [line('failed'), line('dead'), line('cancelled')] },
  { id: 'wait', title: 'Wait time', of: 'from due to started, of the attempts that ended tasks', ...TIMES('waitMs'),
    series: [line('p50'), line('p95'), line('max')] },
  { id: 'run', title: 'Run time', of: 'from started to ended, of the attempts that ended tasks', ...TIMES('runMs'),
    series: [line('p50'), line('p95'), line('max')] },
];

/** The range the address names, else the one chosen last in this tab, else 1 h; kept as the tab's choice. */
export function chosenRange(parameters) {
  const range = RANGES.find((known) => known.name === (parameters.get('range') ?? session.setting('range')))
    ?? RANGES[0];
  session.keep('range', range.name);
  return range;
}

/**
 * A card with the range switch (links to `address(range name)`) and the four charts of `type`'s tasks (every type's
 * when null), read again every 30 s. Answers {element, stop}.
 */
export function historyCard({ type = null, range, address, heading }) {
  const status = h('div', { id: 'history-status', class: 'help', role: 'status' }, 'Loading…');
  const charts = h('div', { id: 'history-charts', class: 'charts', 'aria-busy': 'true' });
  const element = h('section', { class: 'card wide history', id: 'history', 'aria-labelledby': 'history-title',
    'data-range': range.name },
  h('div', { class: 'history-head' },
    h('h2', { id: 'history-title' }, `${heading}, ${range.title}`),
    h('nav', { class: 'ranges', 'aria-label': 'Time range' }, RANGES.map((each) => h('a', { href: address(each.name),
      id: `range-${each.name}`, class: 'range', 'aria-current': each === range ? 'true' : null }, each.label)))),
  status, charts);

  const stop = refreshing(REFRESH_MS, async (stopped) => {
    const to = new Date();
    const from = new Date(to.getTime() - range.ms);
    try {
      const answer = await get(`/stats/history${query({ type, from: from.toISOString(), to: to.toISOString(), step: range.step })}`);
      if (stopped()) {
        return false;
      }
      draw(charts, answer, range);
      status.textContent = folded(answer.foldedUntil);
    } catch (refused) {
      if (stopped()) {
        return false;
      }
      const text = refused instanceof ApiError && refused.status === 404 && !charts.querySelector('svg')
        ? 'Not available on this server (GET /api/v1/stats/history answers 404).'
        : `Could not read the history: ${refused.message}`;
      fill(status, message('problem', text));
    }
    charts.removeAttribute('aria-busy');
    return true;
  });
  return { element, stop };
}

/** foldedUntil: the history holds the work the service had written before it. */
function folded(until) {
  if (!until) {
    return 'The service has not read its tasks into the history yet; it does so within seconds.';
  }
  return `Holds the work done up to ${new Date(until).toLocaleString()}; what happened since is added within seconds. `
    + 'Read again every 30 s.';
}

function draw(charts, answer, range) {
  const from = Math.min(Date.parse(answer.from), ...answer.points.map((point) => Date.parse(point.at)));
  const to = Date.parse(answer.to);
  fill(charts, CHARTS.map((chart) => {
    const points = answer.points.map((point) => Object.fromEntries([['at', Date.parse(point.at)],
      ...chart.series.map((each) => [each.name, chart.value(point, each.name)])]));
    const shown = chart.series.map((each) => [each, summary(chart, points, each.name)]);
    const label = `${chart.title} per ${range.per}, ${range.title}: `
      + shown.map(([each, value]) => `${each.label} ${value}`).join(', ');
    return h('figure', { class: 'chart-box', id: `chart-${chart.id}`, 'data-unit': chart.unit },
      h('h3', {}, chart.title),
      lineChart({ points, series: chart.series, from, to, unit: chart.unit, label }),
      h('figcaption', {},
        h('ul', { class: 'legend' }, shown.map(([each, value]) => h('li', { 'data-series': each.name },
          swatch(each.css), `${each.label}: `,
          h('strong', { id: `${chart.id}-${each.name}` }, value)))),
        h('span', { class: 'help' }, chart.unit === 'ms'
          ? `Per ${range.per}, ${chart.of} (the legend: the highest); a gap where none ended.`
          : `Per ${range.per}: ${chart.of} (the legend: the total).`)));
  }));
}

/** A count's total over the range; a time's highest, or "—" when no task ended. */
function summary(chart, points, name) {
  const values = points.map((point) => point[name]).filter((value) => typeof value === 'number');
  if (chart.unit !== 'ms') {
    return values.reduce((sum, value) => sum + value, 0);
  }
  return values.length ? formatValue(Math.max(...values), 'ms') : '—';
}
