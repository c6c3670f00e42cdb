// What the worker pools need from the world: forge.json files and the directories a scan walks. Paths are absolute
// strings of the host's platform; the services join and split them with node:path's pure string helpers.

/** One read of a forge.json: its text, no such file, or a file that is there but could not be read. */
export type ForgeJsonRead = { kind: "text"; text: string } | { kind: "missing" } | { kind: "error"; error: string }

export interface ForgeJsonFiles {
  /** The global layer: `$XDG_CONFIG_HOME/opencode/forge.json`, else `~/.config/opencode/forge.json`. */
  readonly globalPath: string
  read(path: string): Promise<ForgeJsonRead>
  /** The names of the directories directly inside `dir`, in any order; symlinks are not listed; [] when unreadable. */
  subdirectories(dir: string): Promise<string[]>
  /** The path with every symlink resolved (a pool's identity); the path itself when it cannot be resolved. */
  realpath(path: string): Promise<string>
}
