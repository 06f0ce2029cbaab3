/**
 * What a command that only reads answers: aligned text for a person by default, and with --json
 * the JSON a program reads instead, in snake_case as the API writes it.
 */
export class Readable {
  constructor(
    readonly text: string,
    readonly json: unknown,
  ) {}
}
