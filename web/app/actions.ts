/// <reference lib="dom" />
/**
 * The member application's one-click changes (complete a request, approve a key): the button
 * POSTs, then the page is shown again with the change in it, and the live region says so. A
 * refusal is said in the error region and the page stays as it was.
 */
import { messageOf } from '../shared/api.ts';
import { busy, say, sayError } from '../shared/dom.ts';
import type { AppContext } from './context.ts';

export const postThenRender = (app: AppContext, button: HTMLButtonElement, path: string, done: string, body?: unknown) =>
  busy(button, async () => {
    try {
      await app.post(path, body);
      await app.render({ keepMessages: true });
      say(done);
    } catch (error) {
      sayError(messageOf(error));
    }
  });
