/**
 * The key a `waitFor` pause is stored under and `runner.send` looks it up by: the matched payload fields and their
 * values, fields sorted, as JSON. The store only compares keys for equality, so both sides must build it here.
 */
export function eventKey(match: Readonly<Record<string, unknown>>): string {
  const fields = Object.keys(match).sort();
  return JSON.stringify(fields.map((f) => [f, match[f] ?? null]));
}
