/**
 * A request's settings in words, as the new-request form and the organisation's policy and
 * presets pages offer them: the verification modes and a TTL's length.
 */
export const VERIFICATION_TEXT: Readonly<Record<string, string>> = {
  none: 'None',
  challenge: 'A code you give the subject by phone or in person',
  email_otp: 'A code emailed to the subject',
  either: 'Either code',
  both: 'Both codes',
};

/** Minutes as days, hours or minutes, whichever divides them. */
export const ttlText = (minutes: number) =>
  minutes % 1440 === 0 ? `${minutes / 1440} ${minutes === 1440 ? 'day' : 'days'}` : minutes % 60 === 0 ? `${minutes / 60} ${minutes === 60 ? 'hour' : 'hours'}` : `${minutes} minutes`;
