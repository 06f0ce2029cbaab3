/**
 * The delivery queue: each local send is one SQS SendMessage deployed
 * (lambdas/adapters/sqs-delivery-queue.ts). The meter wraps the local queue's `send` on the
 * webhook workers' dependencies, which every worker calls it through, and counts the sends a
 * counted function makes.
 */
import type { DeliveryQueue } from '../../lambdas/core/ports.ts';
import type { InvocationMeter } from './invocation-meter.ts';

export class QueueMeter {
  messages = 0;

  constructor(private readonly invocations: InvocationMeter) {}

  attach(queue: DeliveryQueue) {
    const send = queue.send.bind(queue);
    queue.send = (...args) => {
      if (this.invocations.current()) this.messages += 1;
      return send(...args);
    };
    return this;
  }

  reset() {
    this.messages = 0;
  }
}
