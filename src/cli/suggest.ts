/** "Did you mean": the name a typo most likely meant, by edit distance. */

/** The candidate a typo most likely meant: within two edits, or one the name starts. */
export function nearestName<T extends string>(name: string, candidates: readonly T[]): T | undefined {
  let best: { candidate: T; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  if (best !== undefined && best.distance <= 2) return best.candidate;
  return name.length >= 3 ? candidates.find((candidate) => candidate.startsWith(name)) : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
