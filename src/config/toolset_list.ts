// Which toolsets a session offers, in the words agents.toml (`tools = [...]`) and a chain task's
// `tools` use: a name grants that toolset, `"*"` every built-in one, `"!name"` takes one out
// whatever else the list says, and an empty list grants nothing.

/** An entry of a tools list: `*`, a toolset name, or `!` and a name. */
export const TOOLSET_ENTRY = /^(?:\*|!?[A-Za-z0-9_-]+)$/;

/** Whether `list` admits the toolset `name`. */
export function admitsToolset(list: readonly string[], name: string): boolean {
  if (list.includes(`!${name}`)) return false;
  return list.includes('*') || list.includes(name);
}

/** The names of `known` that `list` admits, in `known`'s order. */
export function admittedToolsets(list: readonly string[], known: readonly string[]): string[] {
  return known.filter((n) => admitsToolset(list, n));
}
