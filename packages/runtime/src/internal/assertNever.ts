/**
 * Stops a `switch` over a closed union from compiling when a member has no case (`never` is all that is left), and
 * fails loudly if a value outside the union (a node of a newer copy of `@graph/core`) reaches it at run time.
 */
export function assertNever(_value: never, what: string, shown: unknown): never {
  throw new Error(`Unhandled ${what} '${String(shown)}'. This is a bug in @graph: please report it.`);
}
