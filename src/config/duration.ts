// Durations in config, for display (parsing is core/duration.ts).

/** "90000" ms → "1m30s", for display; an ask timeout of "never" is Infinity. */
export function formatDuration(ms: number): string {
  if (ms === Number.POSITIVE_INFINITY) return 'never';
  if (ms % 1000 !== 0) return `${ms}ms`;
  let s = ms / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}
