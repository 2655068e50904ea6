// Telling a typo from a different word: what "did you mean" hints are built on.

/** Whether `typed` is `word` with one or two letters wrong, missing, extra or swapped (case aside). */
export function nearWord(typed: string, word: string): boolean {
  const a = typed.toLowerCase();
  const b = word.toLowerCase();
  if (a === b || Math.abs(a.length - b.length) > 2) return false;
  // Edit distance of two short strings.
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length] <= 2;
}
