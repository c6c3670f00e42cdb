import type { ResolvedShell } from "./shell.resolver"

/** A shell that runs every command inside the sandbox `argv` (bwrap.argv.ts): bwrap is what is spawned. */
export function sandboxedShell(inner: ResolvedShell, argv: readonly string[]): ResolvedShell {
  const [bwrap, ...options] = argv
  if (bwrap === undefined) throw new Error("a sandbox command line names its bwrap first")
  return { path: bwrap, family: inner.family, argv: (command) => [...options, inner.path, ...inner.argv(command)] }
}
