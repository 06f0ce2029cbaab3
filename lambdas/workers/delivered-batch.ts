import type { DeliveryStore } from '#store/deliveries.ts';
import type { DeliveredOutcome } from '#store/delivered-together.ts';

/** A delivery's share of its batch: its 2xx outcome to write with the others, and its end. */
export interface BatchMember {
  delivered(claimed: DeliveredOutcome['claimed'], status: number, nowIso: string, answeredQuickly?: boolean): Promise<boolean>;
  /** The delivery is done with the batch (having written its outcome or not); again changes nothing. */
  done(): void;
}

/**
 * The 2xx outcomes of one batch of deliveries, written together (DeliveryStore.deliveredTogether)
 * once every delivery of the batch has answered or ended another way: one transaction for a batch
 * instead of one per delivery. The receivers have their POSTs by then; only the record of them
 * waits for the batch's slowest (at most its lane's time limit). A delivery whose outcome cannot
 * be written with the others (its attempt stale, a conflict) has it written alone.
 */
export class DeliveredBatch {
  private readonly waiting: Array<{ outcome: DeliveredOutcome; settle: (recorded: boolean) => void; fail: (error: unknown) => void }> = [];

  constructor(
    private readonly store: Pick<DeliveryStore, 'deliveredTogether'>,
    /** Deliveries of the batch not yet waiting to be written nor done. */
    private open: number,
  ) {}

  member(): BatchMember {
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      if (--this.open === 0) void this.write();
    };
    return {
      delivered: (claimed, status, nowIso, answeredQuickly = false) =>
        new Promise<boolean>((settle, fail) => {
          this.waiting.push({ outcome: { claimed, status, nowIso, answeredQuickly }, settle, fail });
          leave();
        }),
      done: leave,
    };
  }

  private async write() {
    const waiting = this.waiting.splice(0);
    if (waiting.length === 0) return;
    try {
      const recorded = await this.store.deliveredTogether(waiting.map(({ outcome }) => outcome));
      waiting.forEach(({ settle }, index) => settle(recorded[index]!));
    } catch (error) {
      for (const { fail } of waiting) fail(error);
    }
  }
}
