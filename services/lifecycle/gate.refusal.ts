/** A machine said no. The message names the gate and the way past it; hooks and tools surface it verbatim. */
export class GateRefusal extends Error {
  constructor(
    readonly machineId: string,
    readonly eventType: string,
    message: string,
  ) {
    super(message)
    this.name = "GateRefusal"
  }
}
