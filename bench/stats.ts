/**
 * Order statistics shared by the benchmarks.
 */

/**
 * Nearest rank: always one of the measured values, never an interpolation between two. No values
 * give 0 rather than undefined, so a figure stays a number in the printed lines and the results.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The 50th percentile: of an even count, the lower middle value (one round's figure, not a mean of two). */
export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/**
 * The least-squares line through the points: its slope and the slope's standard error (how far
 * the points' scatter alone could move it; 0 with fewer than three points).
 */
export function leastSquares(
  xs: readonly number[],
  ys: readonly number[],
): { slope: number; stderr: number } {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return { slope: 0, stderr: 0 };
  const mean = (values: readonly number[]) => values.slice(0, n).reduce((a, b) => a + b, 0) / n;
  const [mx, my] = [mean(xs), mean(ys)];
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - my);
  }
  if (sxx === 0) return { slope: 0, stderr: 0 };
  const slope = sxy / sxx;
  if (n < 3) return { slope, stderr: 0 };
  let residuals = 0;
  for (let i = 0; i < n; i++) residuals += (ys[i]! - my - slope * (xs[i]! - mx)) ** 2;
  return { slope, stderr: Math.sqrt(residuals / (n - 2) / sxx) };
}
