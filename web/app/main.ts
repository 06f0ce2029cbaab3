/// <reference lib="dom" />
/**
 * The member application: one page served at /app and /app/* (docs/web-api.md), routed by path
 * with history.pushState. Credentials are opened only here, with the private key this browser
 * keeps in IndexedDB (web/app/keystore.ts); the service never sees a private key or a plaintext.
 *
 * This file is the shell: the session, the calls, navigation, the nav and the route table. Each
 * page is a module of web/app/pages/, named after its path, whose header lists its test hooks:
 *   /app/sign-in (also the emailed link /app/sign-in#token=…)   pages/sign-in.ts
 *   /app and /app/requests (my requests)                        pages/requests.ts
 *   /app/requests/new (also ?ticket=…&preset=…, a ticket's deep link)  pages/new-request.ts
 *   /app/requests/<id> (detail, audit trail, reveal, complete)  pages/request-detail.ts
 *   /app/key (set up, back up, import or register my key)       pages/key.ts
 *   /app/members (owners and admins: invite, roles, disable and enable, approve replaced keys)  pages/members.ts, pages/member-invite.ts
 *   /app/organisation and /app/organisation/policy (owners and admins: the policy)  pages/organisation-policy.ts
 *   /app/organisation/presets (owners and admins: presets, templates, default presets)  pages/organisation-presets.ts
 *   /app/organisation/clients (owners and admins: clients and teams)  pages/organisation-clients.ts
 *   /app/audit (owners and admins: the audit chain, filters, export; ?view=api_reads: reads through API keys)  pages/audit.ts, pages/api-reads.ts
 *   /app/keys (owners and admins: the organisation's API keys)  pages/api-keys.ts
 *   /app/shares, /app/shares/new, /app/shares/<id>              pages/shares.ts
 *   /app/verify (certificates, also signed out)                 pages/verify.ts
 *   /app/webhooks, /app/webhooks/<id> (owners and admins)      pages/webhooks.ts, pages/webhook-detail.ts
 *   /app/integrations, /app/integrations/<id> (owners and admins)  pages/integrations.ts, pages/integration-detail.ts
 *
 * Stable hooks for automated tests, besides the pages' own:
 *   #status, #error                     live regions (role="status" / role="alert")
 *   #nav, #sign-out                     navigation and sign-out (once signed in)
 */
import { ApiFailure, call, messageOf } from '../shared/api.ts';
import { busy, byId, clearMessages, focusHeading, h, replaceChildren, say, sayError } from '../shared/dom.ts';
import type { AppContext, RenderOptions } from './context.ts';
import { apiKeysPage } from './pages/api-keys.ts';
import { keyPage } from './pages/key.ts';
import { membersPage } from './pages/members.ts';
import { organisationClientsPage } from './pages/organisation-clients.ts';
import { organisationPolicyPage } from './pages/organisation-policy.ts';
import { organisationPresetsPage } from './pages/organisation-presets.ts';
import { auditPage } from './pages/audit.ts';
import { newRequestPage } from './pages/new-request.ts';
import { forgetRevealed, requestDetailPage } from './pages/request-detail.ts';
import { requestsPage } from './pages/requests.ts';
import { newSharePage, shareDetailPage, sharesPage } from './pages/shares.ts';
import { signInPage } from './pages/sign-in.ts';
import { verifyPage } from './pages/verify.ts';
import { integrationDetailPage } from './pages/integration-detail.ts';
import { integrationsPage } from './pages/integrations.ts';
import { webhookDetailPage } from './pages/webhook-detail.ts';
import { webhooksPage } from './pages/webhooks.ts';
import type { Me } from './shapes.ts';
import { rememberReturn } from './return-to.ts';

// --- Session -----------------------------------------------------------------------------------

const session: { me: Me | null } = { me: null };

const get = <T>(path: string) => call<T>('GET', path);
const post = <T>(path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call<T>('POST', path, { body, headers: { ...headers, ...(session.me ? { 'X-CSRF-Token': session.me.csrf_token } : {}) } });

const refreshMe = async () => {
  session.me = await get<Me>('/app/api/me');
  return session.me;
};

const isAdmin = () => session.me?.member.role === 'owner' || session.me?.member.role === 'admin';

// --- Routing -----------------------------------------------------------------------------------

const content = () => byId('content');

/** Object URLs of opened attachments and backups; revoked whenever the page changes. */
let objectUrls: string[] = [];
const objectUrl = (blob: Blob) => {
  const url = URL.createObjectURL(blob);
  objectUrls.push(url);
  return url;
};

const navigate = (path: string, options: RenderOptions & { replace?: boolean } = {}) => {
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  void render({ focus: options.focus ?? true, keepMessages: options.keepMessages });
};

const link = (path: string, text: string) => h('a', { href: path }, text);

document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || anchor.hasAttribute('download') || anchor.target) return;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/app')) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener('popstate', () => void render({ focus: true }));

/** What the page modules (web/app/pages/) get: the session, calls, navigation, re-rendering. */
const app: AppContext = {
  get,
  post,
  navigate: (path, options) => navigate(path, options),
  render: (options) => render(options),
  member: () => session.me?.member ?? null,
  me: () => session.me!,
  refreshMe,
  signedIn: (me) => {
    session.me = me;
  },
  isAdmin,
  objectUrl,
};

type Page = (match: RegExpExecArray) => Promise<HTMLElement>;

const SIGN_IN_PAGE = /^\/app\/sign-in\/?$/;
const REQUEST_PAGE = /^\/app\/requests\/([0-9a-z]{26})\/?$/;

const ROUTES: Array<[RegExp, Page, string]> = [
  [/^\/app\/?$/, () => requestsPage(app), 'requests'],
  [/^\/app\/requests\/?$/, () => requestsPage(app), 'requests'],
  [/^\/app\/requests\/new\/?$/, () => newRequestPage(app), 'requests'],
  [REQUEST_PAGE, (match) => requestDetailPage(app, match[1]), 'requests'],
  [/^\/app\/key\/?$/, () => keyPage(app), 'key'],
  [/^\/app\/members\/?$/, () => membersPage(app), 'organisation'],
  [/^\/app\/organisation(?:\/policy)?\/?$/, () => organisationPolicyPage(app), 'organisation'],
  [/^\/app\/organisation\/presets\/?$/, () => organisationPresetsPage(app), 'organisation'],
  [/^\/app\/organisation\/clients\/?$/, () => organisationClientsPage(app), 'organisation'],
  [/^\/app\/audit\/?$/, () => auditPage(app), 'audit'],
  [/^\/app\/keys\/?$/, () => apiKeysPage(app), 'keys'],
  [/^\/app\/shares\/?$/, () => sharesPage(app), 'shares'],
  [/^\/app\/shares\/new\/?$/, () => newSharePage(app), 'shares'],
  [/^\/app\/shares\/([0-9a-z]{26})\/?$/, (match) => shareDetailPage(app, match[1]), 'shares'],
  [/^\/app\/verify\/?$/, () => verifyPage(app), 'verify'],
  [/^\/app\/webhooks\/?$/, () => webhooksPage(app), 'webhooks'],
  [/^\/app\/webhooks\/([0-9a-z]{26})\/?$/, (match) => webhookDetailPage(app, match[1]!), 'webhooks'],
  [/^\/app\/integrations\/?$/, () => integrationsPage(app), 'integrations'],
  [/^\/app\/integrations\/([0-9a-z]{26})\/?$/, (match) => integrationDetailPage(app, match[1]!), 'integrations'],
];
/** Pages that also work signed out. */
const PUBLIC_PAGE = /^\/app\/verify\/?$/;

let renderCount = 0;

const render = async (options: RenderOptions = {}) => {
  const mine = ++renderCount;
  // A page shown again keeps the keyboard where it was (focusKept, below).
  const focused = document.activeElement instanceof HTMLElement && content().contains(document.activeElement) ? document.activeElement.id : null;
  for (const url of objectUrls) URL.revokeObjectURL(url);
  objectUrls = [];
  if (!options.keepMessages) clearMessages();

  if (SIGN_IN_PAGE.test(location.pathname)) {
    renderNav(null);
    forgetRevealed(null);
    const heading = await signInPage(app);
    if (heading && options.focus) focusHeading(heading);
    return;
  }
  try {
    if (!session.me) await refreshMe();
  } catch (error) {
    const signedOut = error instanceof ApiFailure && error.status === 401;
    if (signedOut && !PUBLIC_PAGE.test(location.pathname)) {
      rememberReturn(location.pathname + location.search);
      return navigate('/app/sign-in', { replace: true, keepMessages: true, focus: !!options.focus });
    }
    if (!signedOut) {
      replaceChildren(content(), h('h1', {}, 'Credential Handoff'), h('p', {}, 'The service could not be reached.'));
      return sayError(messageOf(error));
    }
  }
  const route = ROUTES.map(([pattern, page, section]) => [pattern.exec(location.pathname), page, section] as const).find(([match]) => match);
  // A revealed credential outlives re-renders of its own request's page only.
  forgetRevealed(REQUEST_PAGE.exec(location.pathname)?.[1] ?? null);
  renderNav(route?.[2] ?? null);
  try {
    const page = route ? await route[1](route[0]!) : notFoundPage();
    if (mine !== renderCount) return; // a later navigation won
    replaceChildren(content(), page);
    const heading = page.querySelector('h1');
    // A page built around a refusal (filters in its address the service refused) is fixed there:
    // the focus goes to the first refused field, not the heading.
    const refused = page.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (heading) document.title = `${heading.textContent} · Credential Handoff`;
    if (refused) refused.focus();
    else if (heading) {
      if (options.focus) focusHeading(heading);
      else if (focused !== null) focusKept(focused, heading);
    }
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 401) {
      session.me = null;
      sayError('Your session has ended. Sign in again.');
      return navigate('/app/sign-in', { replace: true, keepMessages: true });
    }
    if (mine !== renderCount) return;
    // A request, share or webhook that does not exist (or is not this member's to see) is not found,
    // as the address of no page is: not "something went wrong", which sends people to try again.
    if (error instanceof ApiFailure && error.status === 404) {
      const page = notFoundPage('It does not exist, or it is not yours to see.');
      replaceChildren(content(), page);
      document.title = 'Not found · Credential Handoff';
      return focusHeading(page.querySelector('h1')!);
    }
    replaceChildren(content(), h('h1', {}, 'Something went wrong'), h('p', {}, link('/app/requests', 'Back to my requests')));
    sayError(messageOf(error));
  }
};

/**
 * After a page is shown again in place (an action done, a list refreshed), the focus goes back to
 * the control of the same id, or, when that control is gone (a Complete button once completed),
 * to the page's heading: never to the top of the page, where a screen reader would start over.
 */
const focusKept = (id: string, heading: HTMLElement) => {
  const again = id ? document.getElementById(id) : null;
  if (again && content().contains(again)) again.focus();
  else focusHeading(heading);
};

const renderNav = (current: string | null) => {
  const nav = byId('nav');
  if (!session.me) {
    nav.hidden = true;
    nav.replaceChildren();
    return;
  }
  const item = (path: string, text: string, section: string) =>
    h('li', {}, h('a', { href: path, 'aria-current': current === section ? 'page' : null }, text));
  const signOut = h('button', { id: 'sign-out', type: 'button', class: 'link-button' }, 'Sign out');
  signOut.addEventListener('click', () =>
    busy(signOut, async () => {
      try {
        await post('/app/api/sign-out');
      } catch (error) {
        if (!(error instanceof ApiFailure && error.status === 401)) return sayError(messageOf(error));
      }
      session.me = null;
      navigate('/app/sign-in', { replace: true });
      say('You are signed out.');
    }),
  );
  replaceChildren(
    nav,
    h(
      'ul',
      {},
      item('/app/requests', 'My requests', 'requests'),
      item('/app/key', 'My key', 'key'),
      item('/app/shares', 'Shares', 'shares'),
      item('/app/verify', 'Verify', 'verify'),
      isAdmin() ? item('/app/organisation/policy', 'Organisation', 'organisation') : null,
      isAdmin() ? item('/app/audit', 'Audit log', 'audit') : null,
      isAdmin() ? item('/app/webhooks', 'Webhooks', 'webhooks') : null,
      isAdmin() ? item('/app/keys', 'API keys', 'keys') : null,
      isAdmin() ? item('/app/integrations', 'Integrations', 'integrations') : null,
      h('li', { class: 'who' }, `${session.me.member.name ?? session.me.member.email ?? ''} · ${session.me.organisation.name}`),
      h('li', {}, signOut),
    ),
  );
  nav.hidden = false;
};

const notFoundPage = (why?: string) =>
  h('div', {}, h('h1', {}, why ? 'Not found' : 'Page not found'), why ? h('p', {}, why) : null, h('p', {}, link('/app/requests', 'Go to my requests')));

void render();
