import type * as z from 'zod/mini';

/**
 * The message of every validation issue a schema leaves without one of its own, in the service's
 * words ("Required.", "Must be ...", "Unknown field."), so a caller never reads the validator's
 * English ("Invalid input: expected string, received undefined") beside the service's. A schema's
 * own message still wins: zod asks this map only when the schema and its check gave none.
 */
type Issue = z.core.$ZodRawIssue;

/** A type as a sentence names it. */
const TYPES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  null: 'null',
  date: 'a date',
};

/** A string format as a sentence names it. */
const FORMATS: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  datetime: 'a date and time (ISO 8601, with a zone)',
  date: 'a date, YYYY-MM-DD',
  ulid: 'a ULID',
  uuid: 'a UUID',
  base64: 'base64 text',
  base64url: 'base64url text',
  e164: 'a phone number in E.164 form',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
};

/** What a size counts, by the kind of value measured. */
const UNITS: Record<string, [one: string, many: string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  file: ['byte', 'bytes'],
};

const counted = (origin: string, count: number | bigint) => {
  const unit = UNITS[origin];
  return unit ? `${count} ${count === 1 ? unit[0] : unit[1]}` : String(count);
};

/** A value as a message quotes it: text in quotes, anything else as JSON writes it. */
const quoted = (value: unknown) => (typeof value === 'string' ? `"${value}"` : String(value));

const typeMessage = (issue: Extract<Issue, { code: 'invalid_type' }>) => {
  // JSON has no undefined: a value that is undefined was left out.
  if (issue.input === undefined) return 'Required.';
  return `Must be ${TYPES[issue.expected] ?? issue.expected}.`;
};

const tooSmall = (issue: Extract<Issue, { code: 'too_small' }>) => {
  const { origin, minimum } = issue;
  if (issue.exact) return `Must be exactly ${counted(origin, minimum)}.`;
  if (UNITS[origin]) return Number(minimum) === 1 && issue.inclusive !== false ? 'Must not be empty.' : `Must have at least ${counted(origin, minimum)}.`;
  return issue.inclusive === false ? `Must be more than ${minimum}.` : `Must be at least ${minimum}.`;
};

const tooBig = (issue: Extract<Issue, { code: 'too_big' }>) => {
  const { origin, maximum } = issue;
  if (issue.exact) return `Must be exactly ${counted(origin, maximum)}.`;
  if (UNITS[origin]) return `Must have at most ${counted(origin, maximum)}.`;
  return issue.inclusive === false ? `Must be less than ${maximum}.` : `Must be at most ${maximum}.`;
};

const formatMessage = (issue: Extract<Issue, { code: 'invalid_format' }>) => {
  const detail = issue as { prefix?: string; suffix?: string; includes?: string };
  if (issue.format === 'starts_with') return `Must start with ${quoted(detail.prefix)}.`;
  if (issue.format === 'ends_with') return `Must end with ${quoted(detail.suffix)}.`;
  if (issue.format === 'includes') return `Must include ${quoted(detail.includes)}.`;
  return FORMATS[issue.format] ? `Must be ${FORMATS[issue.format]}.` : 'Is not in the accepted format.';
};

const oneOf = (values: readonly unknown[]) =>
  values.length === 1 ? `Must be ${quoted(values[0])}.` : `Must be one of ${values.map((value) => String(value)).join(', ')}.`;

/** The service's message for an issue; every issue gets one. */
export const serviceMessage = (issue: Issue): string => {
  switch (issue.code) {
    case 'invalid_type':
      return typeMessage(issue);
    case 'too_small':
      return tooSmall(issue);
    case 'too_big':
      return tooBig(issue);
    case 'invalid_format':
      return formatMessage(issue);
    case 'not_multiple_of':
      return `Must be a multiple of ${issue.divisor}.`;
    case 'invalid_value':
      return oneOf(issue.values);
    case 'unrecognized_keys':
      return 'Unknown field.';
    case 'invalid_union':
      return 'Is none of the accepted forms.';
    case 'invalid_key':
      return 'Holds a field name that is not accepted.';
    case 'invalid_element':
      return 'Holds a value that is not accepted.';
    default:
      return 'Is not accepted.';
  }
};
