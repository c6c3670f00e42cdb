/** The job lifecycle's machine id: its instances' driver claims are kept under it. */
export const JOB_CLAIMS = "job"
