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
