/** What bench/soak.ts and the service it forks (bench/soak-service.ts) say to each other. */

/** What the parent passes in the environment. */
export interface SoakServiceConfig {
  dynamoEndpoint: string;
  outboxDir: string;
  healthyUrl: string;
  hangingUrl: string;
}

/** Said once the service listens and the organisation is set up. */
export interface SoakServiceReady {
  type: 'ready';
  baseUrl: string;
  orgId: string;
  ownerEmail: string;
  keys: string[];
}

export interface ServiceMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

export interface HangingDeliveries {
  byStatus: Record<string, number>;
  attempts: number;
}

/** The parent's questions, and the answers, each tagged with the question's id. */
export type SoakQuestion = { id: number; ask: 'memory' } | { id: number; ask: 'hangingDeliveries' } | { id: number; ask: 'stop' };
export type SoakAnswer = { id: number; memory: ServiceMemory } | { id: number; hangingDeliveries: HangingDeliveries } | { id: number; stopped: true };

export const SOAK_CONFIG_ENV = 'SOAK_SERVICE_CONFIG';
