// How every bench prints a figure: sizes, verdicts, medians (times keep each bench's precision).

export const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
export const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
