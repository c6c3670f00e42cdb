// The /crew command's entry in the slash-command popup; its turn texts live with the crew service (services/crew/crew.command.ts).

export const CREW_COMMAND_DESCRIPTION = "Crew: <objective> in parallel subagent waves"
