// The progress line long commands draw on stderr when it is a terminal (ingest, policy replay):
// count, rate and time left, redrawn in place.

/** 75.2 → "1m15s"; 4.4 → "4s". */
function formatDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  return whole >= 60 ? `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
}

/**
 * `done` of `total` (then `detail`, when given) with the rate so far and the time left, as one line
 * drawn over the last: "ingesting: 4/10 · 4 inserted · 120/s, ETA 1s".
 */
export function progressText(
  label: string,
  done: number,
  total: number,
  seconds: number,
  detail?: string,
): string {
  const rate = seconds > 0 ? done / seconds : 0;
  const eta = rate > 0 ? `, ETA ${formatDuration(Math.max(total - done, 0) / rate)}` : '';
  return `\r\x1b[K${label}: ${done}/${total} · ${detail === undefined ? '' : `${detail} · `}${Math.round(rate)}/s${eta}`;
}
