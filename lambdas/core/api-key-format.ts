import { randomToken, sha256Hex } from './hashing.ts';

/** A live key is this fixed prefix followed by 43 base64url characters (32 random bytes). */
export const LIVE_KEY_PREFIX = 'chs_live_';
const KEY_PATTERN = new RegExp(`^${LIVE_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);
const DISPLAY_PREFIX_LENGTH = 6;
const DISPLAY_PREFIX_PATTERN = new RegExp(`^${LIVE_KEY_PREFIX}[A-Za-z0-9_-]{${DISPLAY_PREFIX_LENGTH}}$`);

export const newApiKeySecret = () => `${LIVE_KEY_PREFIX}${randomToken(32)}`;
export const isWellFormedApiKey = (candidate: string) => KEY_PATTERN.test(candidate);
export const apiKeyHash = (key: string) => sha256Hex(key);
/** Enough of the key to recognise it in a list, far too little to use it. */
export const apiKeyDisplayPrefix = (key: string) => key.slice(0, LIVE_KEY_PREFIX.length + DISPLAY_PREFIX_LENGTH);
/** Shaped as apiKeyDisplayPrefix gives it: how a person may name a key they cannot paste whole. */
export const isApiKeyDisplayPrefix = (candidate: string) => DISPLAY_PREFIX_PATTERN.test(candidate);
