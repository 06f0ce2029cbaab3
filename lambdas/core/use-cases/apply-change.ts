import { WriteConflict } from '../errors.ts';
import { raceBackoff } from '../race-backoff.ts';
import type { HandoffRequest } from '../model.ts';
import type { AuditEntryInput, HandoffRepository, SealedMaterial } from '../ports.ts';

export interface RequestChange {
  after: HandoffRequest;
  audit: AuditEntryInput;
  /** Delete the stored envelope and attachments in the same transaction. */
  purgeMaterial?: boolean;
  /** Store this sealed material in the same transaction (a submission). */
  material?: SealedMaterial;
  /** Further entries appended after `audit` in the same transaction. */
  followUps?: AuditEntryInput[];
}

const MAX_RACES = 5;

/** applyChange's `load`: the request as it stands now, read afresh for each decision; `known` when it is gone. */
export const readAgain = (requests: Pick<HandoffRepository, 'get'>, known: HandoffRequest) => async () => (await requests.get(known.id)) ?? known;

/**
 * Reads the request, lets `decide` choose the change (or none, or throw), and writes it with its
 * audit entry in one transaction. If the request changed in between, it is read again and the
 * decision taken afresh, so two racing changes can never both apply to the same version.
 */
export const applyChange = async <Result>(
  requests: Pick<HandoffRepository, 'get' | 'update' | 'submit'>,
  load: () => Promise<HandoffRequest>,
  decide: (current: HandoffRequest) => RequestChange | null,
  result: (current: HandoffRequest, change: RequestChange | null) => Result,
): Promise<Result> => {
  for (let race = 1; ; race++) {
    const before = await load();
    const change = decide(before);
    if (!change) return result(before, null);
    try {
      if (change.material) await requests.submit(before, change.after, change.material, change.audit, change.followUps);
      else await requests.update(before, change.after, change.audit, change.purgeMaterial ?? false, change.followUps);
      return result(before, change);
    } catch (error) {
      if (!(error instanceof WriteConflict) || race >= MAX_RACES) throw error;
      await raceBackoff(race);
    }
  }
};
