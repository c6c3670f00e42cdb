/** A step refused because another live instance holds the exclusive key it would take (e.g. a session's one live plan). */
export class ExclusiveKeyTaken extends Error {
  constructor(
    readonly key: string,
    readonly machineId: string,
    /** The instance that holds the key. */
    readonly holder: string,
  ) {
    super(`${key} is held by ${machineId} ${holder}`)
    this.name = "ExclusiveKeyTaken"
  }
}
