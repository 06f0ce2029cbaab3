import { expect } from 'vitest';

/**
 * The service's validation messages are its own, in one voice: a sentence ("Required.",
 * "Must be ...", "Unknown field."), never the validator's English, whose defaults read
 * "Invalid input: expected string, received undefined", "Too small: expected string to have
 * >=1 characters", "Invalid option: ...", "Unrecognized key: ...".
 */
const VALIDATOR_WORDING = /^(Invalid\b|Too (big|small)\b|Unrecognized key)|\bexpected\b.*\breceived\b|[<>]=?\d/;

/** Whether a message is the validator's rather than the service's. */
export const isValidatorWording = (message: string) => VALIDATOR_WORDING.test(message);

/** Every message a sentence of the service's: a capital (or a quoted name) first, a full stop last. */
export const expectServiceVoice = (messages: Iterable<string>, where: string) => {
  for (const message of messages) {
    expect(isValidatorWording(message), `${where}: "${message}" is the validator's wording`).toBe(false);
    expect(message, `${where}: "${message}" is a sentence`).toMatch(/^["A-Z].*\.$/s);
  }
};

/** Every message of a validation error body's `errors`, with its field. */
export const fieldMessages = (body: unknown): Array<[field: string, message: string]> => {
  const errors = (body as { errors?: Record<string, string[]> } | undefined)?.errors ?? {};
  return Object.entries(errors).flatMap(([field, messages]) => messages.map((message) => [field, message] as [string, string]));
};
