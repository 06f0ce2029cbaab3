/**
 * The subject's endpoints called as one browser calls them: the link token in `X-Link-Token`, and
 * the subject pass a verify answer issued (`verification.subject_pass`) sent back in
 * `X-Subject-Pass` on every later call with the same link, as the page keeps it in sessionStorage.
 * Each `subjectBrowser()` is a browser of its own: another one holds only the link.
 */
export interface SubjectCaller {
  call(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; text: string }>;
}

/** `service` may be a function answering it, for a service started after the browser is made. */
export const subjectBrowser = <S extends SubjectCaller>(service: S | (() => S)) => {
  const passes = new Map<string, string>();
  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const pass = passes.get(token);
    const target = typeof service === 'function' ? service() : service;
    const answer = (await target.call(method, path, { headers: { 'X-Link-Token': token, ...(pass ? { 'X-Subject-Pass': pass } : {}) }, body })) as Awaited<ReturnType<S['call']>>;
    const issued = (answer as { body?: { verification?: { subject_pass?: unknown } } }).body?.verification?.subject_pass;
    if (typeof issued === 'string') passes.set(token, issued);
    return answer;
  };
  return Object.assign(call, {
    /** The pass this browser holds for the link, if a code has passed in it. */
    passOf: (token: string) => passes.get(token),
    /** Forgets the pass, as a browser closed and opened again (or another one) would. */
    forget: (token: string) => passes.delete(token),
  });
};
