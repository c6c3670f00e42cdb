// What other lifecycles have to say about plans on /plan: a loop that runs one, or how the last one ended and what the
// user does next. The plan knows none of them: a module that acts on plans adds its source when it is built. A source
// answers for every plan of a listing at once, so /plan reads each lifecycle's records once, however many plans it lists.

/** The lines one lifecycle says about each of `planPaths` (a plan it has nothing to say about is left out). */
export type PlanNoteSource = (planPaths: readonly string[]) => Promise<ReadonlyMap<string, readonly string[]>>

export class PlanNotes {
  private readonly sources: { name: string; source: PlanNoteSource }[] = []

  /** `name` says whose notes these are, in the line that stands in for them when they cannot be read. */
  add(name: string, source: PlanNoteSource): void {
    this.sources.push({ name, source })
  }

  /**
   * Every source's lines about each plan, in the order the sources were added; a source that fails is named in one line
   * on every plan instead, and never fails /plan.
   */
  async forPlans(planPaths: readonly string[]): Promise<Map<string, string[]>> {
    const answers = await Promise.all(
      this.sources.map(({ name, source }) =>
        source(planPaths).catch((error: unknown) => {
          const line = `(the ${name} notes could not be read: ${error instanceof Error ? error.message : String(error)})`
          return new Map(planPaths.map((planPath) => [planPath, [line]]))
        }),
      ),
    )
    return new Map(planPaths.map((planPath) => [planPath, answers.flatMap((answer) => [...(answer.get(planPath) ?? [])])]))
  }
}
