/** A command line that cannot be run as given (a missing or bad flag): the `vigil` command and its tools exit 2. */
export class UsageError extends Error {}
