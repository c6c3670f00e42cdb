// What other lifecycles have to say about a plan on /plan: a loop that runs it, or how the last one ended and what the
// user does next. The plan knows none of them: a module that acts on plans adds its source when it is built.

/** The lines one lifecycle says about a plan (none when it has nothing to say). */
export type PlanNoteSource = (planPath: string) => Promise<string[]>

export class PlanNotes {
  private readonly sources: { name: string; source: PlanNoteSource }[] = []

  /** `name` says whose notes these are, in the line that stands in for them when they cannot be read. */
  add(name: string, source: PlanNoteSource): void {
    this.sources.push({ name, source })
  }

  /** Every source's lines about the plan; a source that fails is named in one line instead, and never fails /plan. */
  async for(planPath: string): Promise<string[]> {
    const lines = await Promise.all(
      this.sources.map(({ name, source }) =>
        source(planPath).catch((error: unknown) => [`(the ${name} notes could not be read: ${error instanceof Error ? error.message : String(error)})`]),
      ),
    )
    return lines.flat()
  }
}
