/** A command the user ended with Ctrl+C after it had said what it left behind: exit code 130, as shells use for SIGINT. */
export class CommandInterrupted extends Error {
  readonly exitCode = 130;
}
