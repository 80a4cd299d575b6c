/** One UTC day of `/api/v2/stats/daily`, with the days the API leaves out (nothing happened) filled in as zeros. */
export interface Day {
  /** YYYY-MM-DD (UTC). */
  day: string;
  logins: number;
  signups: number;
  leaked_passwords: number;
}

export const SERIES = [
  { key: 'logins', label: 'Logins', class: 'series-logins' },
  { key: 'signups', label: 'Signups', class: 'series-signups' },
  { key: 'leaked_passwords', label: 'Leaked passwords', class: 'series-leaked' },
] as const;

const WIDTH = 720;
const HEIGHT = 240;
const LEFT = 44;
const BOTTOM = 28;
const TOP = 10;
/** Room for the last day's label, centred under its bars. */
const RIGHT = 28;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const PLOT_HEIGHT = HEIGHT - TOP - BOTTOM;

/** The smallest of 1, 2, 5 × 10ⁿ at or above `value`: axis labels stay round numbers. */
function roundUp(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value) ?? 10 * power;
}

export const shortDay = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/**
 * Logins, signups and leaked passwords per day as grouped bars, drawn as SVG by the console itself: a few dozen
 * rectangles need no chart library, the SVG obeys the page's CSP (no inline styles: colours come from the
 * stylesheet, so dark mode applies), and it is one image with a text summary for assistive technology; the
 * numbers themselves are in the table beside it.
 */
export function DailyChart({ days, summary }: { days: Day[]; summary: string }) {
  const top = roundUp(Math.max(...days.flatMap((day) => SERIES.map((series) => day[series.key]))));
  const slot = PLOT_WIDTH / Math.max(days.length, 1);
  const bar = (slot * 0.8) / SERIES.length;
  const y = (value: number) => TOP + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT;
  // Counted back from the last day, so that today always has its label.
  const labelEvery = Math.max(1, Math.ceil(days.length / 8));
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="chart-title chart-desc" data-testid="daily-chart">
      <title id="chart-title">Logins, signups and leaked passwords per day</title>
      <desc id="chart-desc">{summary}</desc>
      {/* Counts are whole numbers: a half-way line only where it is one. */}
      {[0, top / 2, top].filter(Number.isInteger).map((value) => (
        <g key={value} class="grid" aria-hidden="true">
          <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(value)} y2={y(value)} />
          <text x={LEFT - 6} y={y(value) + 4} text-anchor="end">
            {value}
          </text>
        </g>
      ))}
      {days.map((day, index) => (
        <g key={day.day}>
          {SERIES.map((series, position) =>
            day[series.key] > 0 ? (
              <rect
                key={series.key}
                class={`bar ${series.class}`}
                data-day={day.day}
                x={LEFT + index * slot + slot * 0.1 + position * bar}
                y={y(day[series.key])}
                width={bar}
                height={Math.max(1, (day[series.key] / top) * PLOT_HEIGHT)}
              >
                <title>{`${shortDay(day.day)}: ${day[series.key]} ${series.label.toLowerCase()}`}</title>
              </rect>
            ) : null,
          )}
          {(days.length - 1 - index) % labelEvery === 0 ? (
            <text class="axis" x={LEFT + index * slot + slot / 2} y={HEIGHT - 8} text-anchor="middle" aria-hidden="true">
              {shortDay(day.day)}
            </text>
          ) : null}
        </g>
      ))}
    </svg>
  );
}
