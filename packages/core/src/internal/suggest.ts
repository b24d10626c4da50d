/** Levenshtein distance, small inputs only (names). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

const MAX_SUGGESTED_LENGTH = 200;

/**
 * The closest candidate if it is close enough to be a plausible typo — what "Did you mean" suggestions use.
 * Case-insensitive; "close enough" is an edit distance of at most max(2, ⌈longer length / 3⌉). Total: a name or
 * candidates that are not strings, and names longer than 200 characters (no one typos those, and comparing them
 * costs length²), give no suggestion instead of an error.
 *
 * @example
 * ```ts
 * closestName("retreive", ["retrieve", "generate"]); // "retrieve"
 * ```
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  if (typeof name !== "string" || name.length > MAX_SUGGESTED_LENGTH) return undefined;
  if (typeof (candidates as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] !== "function") return undefined;
  let best: string | undefined;
  let bestScore = Infinity;
  const lower = name.toLowerCase();
  for (const c of candidates as Iterable<unknown>) {
    if (typeof c !== "string" || c.length > MAX_SUGGESTED_LENGTH) continue;
    // Lengths further apart than the largest limit can't be close enough: skip the quadratic comparison.
    if (Math.abs(c.length - name.length) > Math.max(2, Math.ceil(Math.max(name.length, c.length) / 3))) continue;
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(2, Math.ceil(Math.max(name.length, best.length) / 3));
  return bestScore <= limit ? best : undefined;
}

/** `\n  Did you mean 'x'?` or an empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const best = closestName(name, candidates);
  return best === undefined ? "" : ` Did you mean '${best}'?`;
}

export function quoteList(names: Iterable<string>): string {
  const list = [...names].map((n) => `'${n}'`);
  return list.length === 0 ? "(none)" : list.join(", ");
}
