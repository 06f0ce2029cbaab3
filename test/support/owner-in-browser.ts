import type { Browser, Page } from 'playwright-core';
import { launch, signInInBrowser } from './browser.ts';
import { startTestService, type TestOrganisation, type TestService } from './test-service.ts';

export interface OwnerInBrowser {
  service: TestService;
  org: TestOrganisation;
  browser: Browser;
  /** A page signed in as the organisation's owner. */
  page: Page;
  stop(): Promise<void>;
}

/** A test service with one organisation, and a Chromium page signed in as its owner. */
export const ownerInBrowser = async (organisationName: string): Promise<OwnerInBrowser> => {
  const service = await startTestService();
  const org = await service.createOrganisation({ name: organisationName });
  const browser = await launch();
  const page = await (await browser.newContext()).newPage();
  await signInInBrowser(page, service.appUrl, service.outboxDir, org.owner.email);
  return {
    service,
    org,
    browser,
    page,
    stop: async () => {
      await browser.close();
      await service.stop();
    },
  };
};
