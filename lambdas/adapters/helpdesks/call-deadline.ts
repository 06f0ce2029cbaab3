import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A deadline for every helpdesk call made within some work, whatever calls the adapter makes on
 * its way (a token, a renewed token after a 401, a lookup before a post): the creating function
 * waits for a reply in a ticket only so long, and a call still running after it stopped waiting
 * could post a comment its caller was told had failed. Held per async context, so a warm function's
 * other work (ticket checks) keeps its own timeouts.
 */
const deadlines = new AsyncLocalStorage<number>();

/** Runs `work` with every helpdesk call inside it ending by `deadlineAt` (epoch milliseconds). */
export const withHelpdeskDeadline = <T>(deadlineAt: number, work: () => Promise<T>): Promise<T> => deadlines.run(deadlineAt, work);

/** How long a call starting now may take: its own limit, or less when a deadline is nearer; at most 0 when it has passed. */
export const callTimeoutMs = (ownLimitMs: number) => {
  const deadlineAt = deadlines.getStore();
  return deadlineAt === undefined ? ownLimitMs : Math.min(ownLimitMs, deadlineAt - Date.now());
};
