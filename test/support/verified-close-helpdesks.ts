import type { HelpdeskCall, ScriptedAnswer } from './fake-helpdesk-server.ts';
import { startFakeAutotask } from './fake-autotask.ts';
import { startFakeConnectWise } from './fake-connectwise.ts';
import { startFakeFreshdesk } from './fake-freshdesk.ts';
import { startFakeFreshservice } from './fake-freshservice.ts';
import { startFakeHaloPsa } from './fake-halopsa.ts';
import { startFakeJsm } from './fake-jsm.ts';
import { startFakeServiceNow } from './fake-servicenow.ts';
import { startFakeZammad } from './fake-zammad.ts';
import { startFakeZendesk } from './fake-zendesk.ts';
import { autotaskContractProblems } from './contract-autotask.ts';
import { connectWiseContractProblems } from './contract-connectwise.ts';
import { freshdeskContractProblems } from './contract-freshdesk.ts';
import { freshserviceContractProblems } from './contract-freshservice.ts';
import { serviceNowContractProblems } from './contract-servicenow.ts';
import { zammadContractProblems } from './contract-zammad.ts';
import { haloPsaContractProblems, jsmContractProblems, zendeskContractProblems } from './helpdesk-contracts.ts';

/**
 * Each helpdesk's fake as the verified-close test (test/e2e/helpdesk-verified-close.test.ts) drives
 * it, behind one shape: its connection, tickets to set open or closed, the next read or reply to
 * fail, the comments a customer sees, and the contract its whole history must keep. `now` is the
 * fakes' clock (tokens expire by it), shared with the service under test.
 */

/** What the test needs of one helpdesk's fake: its connection, and ways to set a ticket open or closed and to fail the next read. */
export interface Helpdesk {
  name: 'zendesk' | 'jira' | 'halopsa' | 'servicenow' | 'zammad' | 'freshdesk' | 'freshservice' | 'connectwise' | 'autotask';
  url: string;
  /** Whether the adapter first asks for an OAuth token (Zendesk, Halo), rather than sending its credentials on every call. */
  fetchesTokens: boolean;
  connect: { credentials: Record<string, string>; closedStatusNames?: string[] };
  secrets: string[];
  ticket(n: number): string;
  open(id: string): void;
  close(id: string): void;
  failNextRead(status: 429 | 503, retryAfterSeconds: number): void;
  failNextReply(status: 503, retryAfterSeconds: number): void;
  /** Scripts the next reply's answer as given (a 200 that is a web page, not the API's). */
  answerNextReply(answer: ScriptedAnswer): void;
  /** The ticket's comments (Halo: actions) as the customer would see them. */
  comments(id: string): Array<{ text: string; public: boolean }>;
  readsOf(id: string): number;
  /** What the fake's whole history breaks of the vendor's contract (its OpenAPI subset, helpdesk-contracts.ts, or documented calls, contract-<vendor>.ts); empty when nothing. */
  contractProblems(): string[];
  /** What each call in that history was, and whether the fake answered it itself with a success (an answer the check validated). */
  checkedCalls(): CheckedCall[];
  stop(): Promise<void>;
}

export type CheckedCall = { kind: 'token' | 'read' | 'reply' | 'none'; ownSuccess: boolean };

/**
 * A refusal of `endpoint` with the vendor's error `body` and Retry-After: what failNextRead and
 * failNextReply script, each vendor its own endpoint and body.
 */
const refusing =
  <E extends string>(fake: { answerNext(endpoint: E, ...answers: ScriptedAnswer[]): void }, endpoint: E, body: unknown = {}) =>
  (status: number, wait: number) =>
    fake.answerNext(endpoint, { status, headers: { 'Retry-After': String(wait) }, body });

/** The scripts of a vendor's reply endpoint: a refusal with its error `body`, or any answer. */
const replyScripts = <E extends string>(fake: { answerNext(endpoint: E, ...answers: ScriptedAnswer[]): void }, endpoint: E, body: unknown = {}) => ({
  failNextReply: refusing(fake, endpoint, body),
  answerNextReply: (answer: ScriptedAnswer) => fake.answerNext(endpoint, answer),
});

/** The fake's calls as kinds the test names alike for every vendor. */
const checkedCalls = <E extends string>(history: readonly HelpdeskCall<E>[], kinds: Record<E, CheckedCall['kind']>): CheckedCall[] =>
  history.map((call) => ({
    kind: call.endpoint === null ? 'none' : kinds[call.endpoint],
    ownSuccess: !call.scripted && call.answer !== 'hang' && call.answer.status < 300,
  }));

export const zendeskHelpdesk = async (now: () => number): Promise<Helpdesk> => {
  const credentials = { client_id: 'handoff-zd', client_secret: 'zd-secret-e2e-5b1f0c7a9d3e4f21' };
  const fake = await startFakeZendesk({ clientId: credentials.client_id, clientSecret: credentials.client_secret, now });
  return {
    name: 'zendesk',
    url: fake.url,
    fetchesTokens: true,
    connect: { credentials },
    secrets: [credentials.client_secret],
    ticket: (n) => String(4000 + n),
    open: (id) => fake.setTicket(id, 'open'),
    close: (id) => fake.setTicket(id, 'closed'),
    failNextRead: refusing(fake, 'show'),
    ...replyScripts(fake, 'update'),
    comments: (id) => fake.comments(id).map((comment) => ({ text: comment.body, public: comment.public })),
    readsOf: (id) => fake.history.filter((call) => call.endpoint === 'show' && call.path.endsWith(`/${id}`)).length,
    contractProblems: () => zendeskContractProblems(fake.history),
    checkedCalls: () => checkedCalls(fake.history, { token: 'token', show: 'read', update: 'reply' }),
    stop: () => fake.close(),
  };
};

export const jiraHelpdesk = async (now: () => number): Promise<Helpdesk> => {
  const credentials = { email: 'agent@acme.example', api_token: 'ATATT-e2e-jsm-token-9c2d7e1f' };
  const fake = await startFakeJsm({ email: credentials.email, apiToken: credentials.api_token, now });
  return {
    name: 'jira',
    url: fake.url,
    fetchesTokens: false,
    connect: { credentials, closedStatusNames: ['Closed'] },
    secrets: [credentials.api_token],
    ticket: (n) => `ITSM-${100 + n}`,
    open: (id) => fake.setRequest(id, 'In Progress', 'INDETERMINATE'),
    close: (id) => fake.setRequest(id, 'Closed', 'DONE'),
    failNextRead: refusing(fake, 'request'),
    ...replyScripts(fake, 'comment'),
    comments: (id) => fake.comments(id).map((comment) => ({ text: comment.body, public: comment.public })),
    readsOf: (id) => fake.history.filter((call) => call.endpoint === 'request' && call.path.endsWith(`/${id}`)).length,
    contractProblems: () => jsmContractProblems(fake.history),
    checkedCalls: () => checkedCalls(fake.history, { request: 'read', comment: 'reply' }),
    stop: () => fake.close(),
  };
};

export const halopsaHelpdesk = async (now: () => number): Promise<Helpdesk> => {
  const credentials = { client_id: 'handoff-halo', client_secret: 'halo-secret-e2e-3a8b6c4d2e1f0987' };
  const fake = await startFakeHaloPsa({ clientId: credentials.client_id, clientSecret: credentials.client_secret, now });
  return {
    name: 'halopsa',
    url: fake.url,
    fetchesTokens: true,
    connect: { credentials },
    secrets: [credentials.client_secret],
    ticket: (n) => String(7000 + n),
    open: (id) => fake.setTicket(Number(id), { statusId: 2, closed: false }),
    close: (id) => fake.setTicket(Number(id), { statusId: 9, closed: true }),
    failNextRead: refusing(fake, 'ticket'),
    ...replyScripts(fake, 'actions'),
    comments: (id) => fake.actions(Number(id)).map((action) => ({ text: action.note, public: !action.hiddenfromuser })),
    readsOf: (id) => fake.history.filter((call) => call.endpoint === 'ticket' && call.path.endsWith(`/${id}`)).length,
    contractProblems: () => haloPsaContractProblems(fake.history, { clientId: credentials.client_id }),
    checkedCalls: () => checkedCalls(fake.history, { token: 'token', ticket: 'read', actions: 'reply' }),
    stop: () => fake.close(),
  };
};

export const servicenowHelpdesk = async (): Promise<Helpdesk> => {
  const credentials = { username: 'svc.handoff', password: 'sn-e2e-password-6d2a9f4c1b7e' };
  const fake = await startFakeServiceNow(credentials);
  return {
    name: 'servicenow',
    url: fake.url,
    fetchesTokens: false,
    connect: { credentials },
    secrets: [credentials.password],
    ticket: (n) => `INC${String(40_000 + n).padStart(7, '0')}`,
    open: (id) => void fake.setIncident(id, '2'),
    close: (id) => void fake.setIncident(id, '7'),
    // Tickets are linked by number, so every read is the Table API query by number.
    failNextRead: (status, wait) => (status === 429 ? fake.rateLimitNext('query', wait) : refusing(fake, 'query')(status, wait)),
    ...replyScripts(fake, 'update'),
    comments: (id) => fake.journal(id).map((entry) => ({ text: entry.text, public: entry.field === 'comments' })),
    readsOf: (id) => fake.history.filter((call) => call.endpoint === 'query' && call.path.includes(`number%3D${id}&`)).length,
    contractProblems: () => serviceNowContractProblems(fake.history),
    checkedCalls: () => checkedCalls(fake.history, { record: 'read', query: 'read', update: 'reply' }),
    stop: () => fake.close(),
  };
};

export const zammadHelpdesk = async (): Promise<Helpdesk> => {
  const credentials = { api_token: 'zammad-e2e-access-token-8c3f1a6d2b9e' };
  const fake = await startFakeZammad({ accessToken: credentials.api_token });
  return {
    name: 'zammad',
    url: fake.url,
    fetchesTokens: false,
    connect: { credentials },
    secrets: [credentials.api_token],
    ticket: (n) => String(50_000 + n),
    open: (id) => void fake.setTicket(id, 'open'),
    close: (id) => void fake.setTicket(id, 'closed'),
    // The number's search and the states list come first, once: the read that reads the state is the show.
    failNextRead: refusing(fake, 'show', { error: 'failed' }),
    ...replyScripts(fake, 'articles', { error: 'failed' }),
    comments: (id) => fake.articles(id).map((article) => ({ text: article.body, public: article.internal === false })),
    readsOf: (id) => fake.history.filter((call) => call.endpoint === 'show' && call.path.endsWith(`/${fake.idOf(id)}`)).length,
    contractProblems: () => zammadContractProblems(fake.history),
    checkedCalls: () => checkedCalls(fake.history, { search: 'read', show: 'read', states: 'read', articles: 'reply' }),
    stop: () => fake.close(),
  };
};

/**
 * A Freshworks helpdesk (Freshdesk or Freshservice: one fake, fake-freshworks.ts, and one contract
 * check, contract-freshworks.ts, behind both), its tickets numbered from `firstTicket`.
 */
const freshworksHelpdesk = async (
  name: 'freshdesk' | 'freshservice',
  start: typeof startFakeFreshdesk,
  contractProblems: typeof freshdeskContractProblems,
  apiKey: string,
  firstTicket: number,
): Promise<Helpdesk> => {
  const credentials = { api_token: apiKey };
  const fake = await start({ apiKey });
  return {
    name,
    url: fake.url,
    fetchesTokens: false,
    connect: { credentials },
    secrets: [credentials.api_token],
    ticket: (n) => String(firstTicket + n),
    open: (id) => fake.setTicket(id, 2),
    close: (id) => fake.setTicket(id, 5),
    failNextRead: refusing(fake, 'view', { message: 'failed' }),
    ...replyScripts(fake, 'reply', { message: 'failed' }),
    // The reply's HTML holds the link as the text of an anchor, so the text is found in it as in the others.
    comments: (id) => fake.conversations(id).map((conversation) => ({ text: conversation.body, public: !conversation.private })),
    readsOf: (id) => fake.history.filter((call) => call.endpoint === 'view' && call.path.endsWith(`/${id}`)).length,
    contractProblems: () => contractProblems(fake.history),
    checkedCalls: () => checkedCalls(fake.history, { view: 'read', reply: 'reply' }),
    stop: () => fake.close(),
  };
};

export const freshdeskHelpdesk = () => freshworksHelpdesk('freshdesk', startFakeFreshdesk, freshdeskContractProblems, 'FdE2eApiKey5b8c1d9f3a7e', 8000);

export const freshserviceHelpdesk = () => freshworksHelpdesk('freshservice', startFakeFreshservice, freshserviceContractProblems, 'FsE2eApiKey2c7d4e9a1b6f', 8500);

export const connectwiseHelpdesk = async (): Promise<Helpdesk> => {
  const credentials = { company_id: 'acme', public_key: 'CwE2ePublic7a1c', private_key: 'CwE2ePrivate4d9b6e2f', client_id: '3f6a9d2e-7b1c-4e8a-9f05-c2d4e6a8b1f3' };
  const fake = await startFakeConnectWise({ companyId: credentials.company_id, publicKey: credentials.public_key, privateKey: credentials.private_key, clientId: credentials.client_id });
  return {
    name: 'connectwise',
    url: fake.url,
    fetchesTokens: false,
    connect: { credentials },
    secrets: [credentials.private_key, credentials.client_id],
    ticket: (n) => String(9000 + n),
    open: (id) => fake.setTicket(id, 'In Progress', false),
    close: (id) => fake.setTicket(id, '>Closed', true),
    failNextRead: refusing(fake, 'ticket', { code: 'Failed', message: 'failed' }),
    ...replyScripts(fake, 'notes', { code: 'Failed', message: 'failed' }),
    // A Discussion note is the customer-facing thread; Internal Analysis is not.
    comments: (id) => fake.notes(id).map((note) => ({ text: note.text, public: note.detailDescriptionFlag && !note.internalAnalysisFlag })),
    readsOf: (id) => fake.history.filter((call) => call.endpoint === 'ticket' && call.path.includes(`/tickets/${id}?`)).length,
    contractProblems: () => connectWiseContractProblems(fake.history, { clientId: credentials.client_id }),
    checkedCalls: () => checkedCalls(fake.history, { ticket: 'read', notes: 'reply' }),
    stop: () => fake.close(),
  };
};

export const autotaskHelpdesk = async (): Promise<Helpdesk> => {
  const credentials = { integration_code: 'HANDOFFE2EINTEGRATIONCODE01', username: 'handoff.e2e@acme.example', password: 'AtE2eSecret-3b7d9f1c' };
  const fake = await startFakeAutotask({ integrationCode: credentials.integration_code, username: credentials.username, secret: credentials.password });
  return {
    name: 'autotask',
    url: fake.url,
    fetchesTokens: false,
    connect: { credentials },
    secrets: [credentials.password],
    ticket: (n) => String(99_000 + n),
    open: (id) => fake.setTicket(id, 8),
    close: (id) => fake.setTicket(id, 5),
    failNextRead: refusing(fake, 'ticket', { errors: ['failed'] }),
    // A reply reads the note picklists first: the post that fails is the note's.
    ...replyScripts(fake, 'notes', { errors: ['failed'] }),
    // Published to All Autotask Users (1 in the fake's picklist) is what the customer sees.
    comments: (id) => fake.notes(id).map((note) => ({ text: note.description, public: note.publish === 1 })),
    readsOf: (id) => fake.history.filter((call) => call.endpoint === 'ticket' && call.path.endsWith(`/Tickets/${id}`)).length,
    contractProblems: () => autotaskContractProblems(fake.history, { publish: 1 }),
    checkedCalls: () => checkedCalls(fake.history, { ticket: 'read', fields: 'reply', notes: 'reply' }),
    stop: () => fake.close(),
  };
};

/** Every helpdesk with an adapter, by the label the test names it with. */
export const VERIFIED_CLOSE_HELPDESKS = [
  ['Zendesk', zendeskHelpdesk],
  ['Jira Service Management', jiraHelpdesk],
  ['HaloPSA', halopsaHelpdesk],
  ['ServiceNow', servicenowHelpdesk],
  ['Zammad', zammadHelpdesk],
  ['Freshdesk', freshdeskHelpdesk],
  ['Freshservice', freshserviceHelpdesk],
  ['ConnectWise PSA', connectwiseHelpdesk],
  ['Autotask', autotaskHelpdesk],
] as const;
